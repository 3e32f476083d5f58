#include "conformance/digester_checks.hpp"

#include "conformance/isolated_call.hpp"
#include "plugins/adapter_instance.hpp"
#include "plugins/digester_instance.hpp"

#include <fmt/format.h>

#include <chrono>

namespace helix {
namespace {

struct MadeUpSession {
  SessionRow session;
  std::vector<EventRow> events;
  std::vector<StoredUsage> usage;
};

// A session of `n` events cycling through every kind, tool calls paired with their results.
MadeUpSession made_up_session(int n) {
  MadeUpSession m;
  m.session.uid = "check:s-1";
  m.session.flavor = "check";
  m.session.native_id = "s-1";
  m.session.cwd = "/work/check";
  m.session.started_at_ms = 1'700'000'000'000;
#define HELIX_KIND_NAME(k) std::string(k),
  const std::vector<std::string> kinds = {HELIX_EVENT_KINDS(HELIX_KIND_NAME)};
#undef HELIX_KIND_NAME
  for (int i = 0; i < n; ++i) {
    EventRow e;
    e.seq = i;
    e.ts_ms = m.session.started_at_ms + int64_t{i} * 1000;
    e.source_offset = int64_t{i} * 100;
    e.kind = kinds[static_cast<std::size_t>(i) % kinds.size()];
    e.role = e.kind == "user_msg" ? "user" : "assistant";
    e.tool = e.kind == "tool_call" || e.kind == "tool_result" || e.kind == "edit" ? "Bash" : "";
    e.call_id = e.tool.empty() ? "" : fmt::format("call-{}", i / 14);
    e.uid = fmt::format("uid-{}", i);
    e.text = fmt::format("text of event {} ({})", i, e.kind);
    e.summary = e.text;
    e.model = "check-model";
    m.events.push_back(e);
    if (i % 10 == 0) {
      StoredUsage u;
      u.key = fmt::format("call-{}", i);
      u.model = "check-model";
      u.ts_ms = e.ts_ms;
      u.source_offset = e.source_offset;
      u.input_tokens = 1000 + i;
      u.output_tokens = 100;
      u.cache_read_tokens = 500;
      m.usage.push_back(u);
    }
  }
  return m;
}

// Digests `m` in a child process with a time limit; "" when end_session returned.
std::string digest_isolated(const PluginInfo& plugin, const PluginCheckOptions& options,
                            const MadeUpSession& m) {
  return run_isolated(
      [&] { DigesterInstance(plugin, options.config_json).run(m.session, m.events, m.usage); },
      options.timeout_s);
}

std::vector<std::pair<std::string, MadeUpSession>> damaged_sessions() {
  std::vector<std::pair<std::string, MadeUpSession>> out;
  out.emplace_back("a session without events or usage", made_up_session(0));
  MadeUpSession empty_fields = made_up_session(20);
  for (auto& e : empty_fields.events) e = EventRow{};
  out.emplace_back("events with every field empty", empty_fields);
  MadeUpSession odd = made_up_session(20);
  for (auto& e : odd.events) {
    e.kind = "no_such_kind";
    e.text = std::string(1 << 20, '\xff');
  }
  out.emplace_back("unknown kinds and 1 MiB texts of invalid UTF-8", odd);
  MadeUpSession negative = made_up_session(20);
  for (auto& u : negative.usage) u.input_tokens = -5;
  out.emplace_back("negative token counts", negative);
  return out;
}

}  // namespace

void check_digester(const PluginInfo& plugin, const PluginCheckOptions& options,
                    CheckReport& report) {
  report.section("made-up session: 140 events of every kind, 14 usage records");
  const MadeUpSession m = made_up_session(140);
  std::optional<DigesterInstance> digester;
  DigestOutput whole;
  try {
    digester.emplace(plugin, options.config_json);
    whole = digester->run(m.session, m.events, m.usage);
    report.pass("digest", fmt::format("one JSON object of {} bytes, state of {} bytes",
                                      whole.json.size(), whole.state.size()));
  } catch (const std::exception& e) {
    return report.fail("digest", e.what());
  }

  const DigestOutput again = digester->run(m.session, m.events, m.usage);
  const DigestOutput fresh =
      DigesterInstance(plugin, options.config_json).run(m.session, m.events, m.usage);
  const bool pure = again.json == whole.json && fresh.json == whole.json &&
                    again.state == whole.state && fresh.state == whole.state;
  report.check(
      pure, "purity", "the same session gives the same digest, in any instance",
      fmt::format("the same session gave another digest: {} then {}", whole.json.substr(0, 200),
                  (again.json != whole.json ? again.json : fresh.json).substr(0, 200)));

  std::string problem;
  const auto damaged = damaged_sessions();
  for (const auto& [name, session] : damaged)
    if (auto what = digest_isolated(plugin, options, session); !what.empty()) {
      problem = fmt::format("{} on {}", what, name);
      break;
    }
  report.check(problem.empty(), "exception safety",
               fmt::format("{} damaged sessions: every call returned", damaged.size()), problem);

  if (!digester->can_resume()) {
    report.note("resume_session is NULL: a grown session is digested again from its start");
  } else {
    problem.clear();
    for (std::size_t split : {std::size_t{1}, std::size_t{13}, std::size_t{70}, std::size_t{139}}) {
      const std::vector<EventRow> before(m.events.begin(), m.events.begin() + split);
      const std::vector<EventRow> after(m.events.begin() + split, m.events.end());
      const DigestOutput first = digester->run(m.session, before, m.usage);
      try {
        const DigestOutput resumed = digester->run(m.session, after, m.usage, first.state);
        if (resumed.json != whole.json)
          problem = fmt::format("resumed after {} events: {} instead of {}", split,
                                resumed.json.substr(0, 200), whole.json.substr(0, 200));
      } catch (const std::exception& e) {
        problem = fmt::format("resuming after {} events failed: {}", split, e.what());
      }
      if (!problem.empty()) break;
    }
    report.check(problem.empty(), "resume",
                 "resumed at 4 split points, the digest equals the whole session's", problem);
  }

  const auto start = std::chrono::steady_clock::now();
  int sessions = 0;
  double seconds = 0;
  do {
    digester->run(m.session, m.events, m.usage);
    ++sessions;
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } while (seconds < 0.25);
  report.pass("speed", fmt::format("{:.0f} events per second", sessions * 140.0 / seconds));
}

}  // namespace helix
