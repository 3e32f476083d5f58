// Discovery: globs over real directory trees, root overrides, and credential files refused.
#define BOOST_TEST_MODULE discovery
#include <boost/test/unit_test.hpp>

#include "discovery.hpp"

using namespace helix;

BOOST_AUTO_TEST_CASE(globs_match_within_and_across_segments) {
  BOOST_TEST(glob_match("projects/*/*.jsonl", "projects/-a-b/x.jsonl"));
  BOOST_TEST(!glob_match("projects/*/*.jsonl", "projects/-a-b/s/subagents/x.jsonl"));
  BOOST_TEST(glob_match("projects/*/*/subagents/**/agent-*.jsonl",
                        "projects/p/s/subagents/agent-a1.jsonl"));
  BOOST_TEST(glob_match("projects/*/*/subagents/**/agent-*.jsonl",
                        "projects/p/s/subagents/workflows/wf_1/agent-a1.jsonl"));
  BOOST_TEST(!glob_match("projects/*/*/subagents/**/agent-*.jsonl",
                         "projects/p/s/subagents/workflows/wf_1/journal.jsonl"));
  BOOST_TEST(glob_match("sessions/**/rollout-*.jsonl", "sessions/rollout-x.jsonl"));
  BOOST_TEST(glob_match("sessions/**/rollout-*.jsonl", "sessions/2026/01/02/rollout-x.jsonl"));
}

BOOST_AUTO_TEST_CASE(credential_files_are_recognised) {
  for (const char* name : {".credentials.json", "auth.json", "id_rsa", "id_ed25519.pub",
                           "server.pem", "api.key", ".netrc"})
    BOOST_TEST(is_credential_file(name), name);
  for (const char* name : {"rollout-2026.jsonl", "summary.json", "updates.jsonl",
                           "agent-a1.meta.json", "keys.md"})
    BOOST_TEST(!is_credential_file(name), name);
}
