// Secret redaction: every text helix-host stores passes through a Redactor first (design §9).
#pragma once

#include "privacy/redaction_config.hpp"
#include "privacy/secret_rules.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace helix {

// What redact_record learnt about a record, so that a text copied out of it (an event's text
// is often one of the record's strings) need not be searched a second time.
class RecordScan {
 public:
  // True when `text` is one of the record's top-level strings and the record held no secret.
  bool covers(std::string_view text) const;

 private:
  friend class Redactor;
  bool clean_ = false;
  std::string searched_;  // the texts searched together, the record's strings among them
  std::vector<std::pair<std::size_t, std::size_t>> strings_;  // offset and size in searched_
};

// How the rules that run on a text are chosen; the results are the same, byte for byte.
enum class RuleChoice {
  kPrefilter,  // one Vectorscan pass over every rule's keywords and required strings (helix's)
  kEveryRule,  // every rule whose keywords the text holds, each run alone (what tests compare)
  kRe2Set,     // one RE2::Set of every rule, as helix chose before the prefilter (bench/)
};

struct RedactorOptions {
  RuleChoice choice = RuleChoice::kPrefilter;
  // The built-in rules and allow entries; null: builtin_secret_rules() and
  // builtin_secret_allows(). Not owned; must outlive the Redactor.
  const std::vector<SecretRule>* rules = nullptr;
  const std::vector<SecretAllow>* allows = nullptr;
};

class Redactor {
 public:
  // Checks the rules; the prefilter is built by the first text searched (or prepare()), each
  // rule's regex the first time a text needs it. Throws std::runtime_error for a configured
  // rule or allow entry the config check let through.
  explicit Redactor(const RedactionConfig& config = {}, const RedactorOptions& options = {});
  ~Redactor();
  Redactor(const Redactor&) = delete;
  Redactor& operator=(const Redactor&) = delete;

  // Replaces each secret in `text` with "[REDACTED:<rule id>]"; returns how many it replaced.
  // JSON strings inside the text are decoded and searched as well.
  // A text that `from` covers (a clean record's string) is left as it is, unsearched.
  int64_t redact_text(std::string& text, const RecordScan* from = nullptr) const;

  // For a raw record: only the contents of JSON strings change (each is decoded, redacted and
  // encoded again), so a valid JSON record stays valid JSON. Text that does not start like
  // JSON is redacted as text. `scan`, when given, learns what redact_text(from=scan) can skip.
  int64_t redact_record(std::string& record, RecordScan* scan = nullptr) const;

  // `text` redacted: for log lines and other texts kept outside the store.
  std::string redacted(std::string_view text) const;

  // Builds the prefilter now: before a fork, so that the processes share one copy of it.
  void prepare() const;
  bool prepared() const;  // nothing is left for the first text to build

  // The ids of the rules applied, built-in then configured.
  std::vector<std::string> rule_ids() const;

 private:
  struct Rules;
  static void prepare_choice(Rules& rules);
  std::unique_ptr<Rules> rules_;
};

}  // namespace helix
