#include "privacy/redactor.hpp"

#include "base/text.hpp"

#include <fmt/format.h>
#include <re2/re2.h>
#include <re2/set.h>
#include <algorithm>
#include <boost/json.hpp>
#include <cstring>
#include <numeric>
#include <stdexcept>

namespace helix {
namespace {

// JSON inside a JSON string inside ... (Codex keeps tool arguments and outputs as JSON text).
constexpr int kMaxNesting = 4;

// Values that look like secrets to some rules but are placeholders (after gitleaks' global
// allowlist and the notes of secret_patterns.tsv), and the markers of an earlier redaction.
constexpr const char* kBuiltinAllow[] = {
    R"(^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$)",  // $VAR, ${VAR}
    R"(^\{\{.*\}\}$)",                      // {{ template }}
    R"(^<[^<>]*>$)",                        // <your-token>
    R"((?i)^(?:x+|\*+|\.+|-+|changeme|password|passwd|secret|example|placeholder|redacted|none|null|true|false|your[-_a-z]*)$)",
    R"(EXAMPLE(?:KEY)?$)",  // AWS documentation keys (AKIAIOSFODNN7EXAMPLE, ...EXAMPLEKEY)
    R"(\[REDACTED:)",       // already redacted: redact(redact(x)) == redact(x)
};

// Joins the texts of one search: the newline ends a token for every rule that needs a delimiter
// or the end of the text after it, and the control character stops the rules that skip
// whitespace (password\s*=), so a match in one text is found in the joined texts as well.
constexpr std::string_view kSeparator = "\n\x01";

using Places = std::vector<std::pair<std::size_t, std::size_t>>;

struct Span {
  std::size_t begin, end;
  int rule;
};

struct Edit {
  std::size_t begin, end;
  std::string with;
};

RE2::Options rule_options() {
  RE2::Options o;
  o.set_log_errors(false);
  return o;
}

re2::StringPiece piece(std::string_view s) { return {s.data(), s.size()}; }

bool valid_rule_id(std::string_view id) {
  return !id.empty() && id.size() <= 64 && std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
}

std::vector<std::string_view> split_tabs(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (true) {
    std::size_t tab = line.find('\t', pos);
    out.push_back(line.substr(pos, tab == std::string_view::npos ? tab : tab - pos));
    if (tab == std::string_view::npos) return out;
    pos = tab + 1;
  }
}

std::vector<SecretRule> parse_tsv(std::string_view tsv) {
  std::vector<SecretRule> rules;
  std::size_t pos = 0;
  while (pos < tsv.size()) {
    std::size_t end = tsv.find('\n', pos);
    if (end == std::string_view::npos) end = tsv.size();
    std::string_view line = tsv.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty() || line.front() == '#') continue;
    auto f = split_tabs(line);
    if (f.size() != 5) throw std::logic_error("secret_patterns.tsv: a line without 5 columns");
    rules.push_back({std::string(f[0]), std::string(f[1]), std::string(f[3]), std::string(f[4]),
                     std::stoi(std::string(f[2]))});
  }
  return rules;
}

// A JSON string literal in a text: s[begin] and s[end - 1] are its quotes.
struct Literal {
  std::size_t begin = 0, end = 0;
  bool escaped = false;  // holds a backslash
  bool is_key = false;   // followed by ':'
  std::string_view contents(std::string_view s) const {
    return s.substr(begin + 1, end - begin - 2);
  }
};

// The next terminated literal at or after `from`; false when there is none (an unterminated
// literal is left to the search of the bytes outside strings).
bool next_literal(std::string_view s, std::size_t from, Literal& literal) {
  const std::size_t begin = s.find('"', from);
  if (begin == std::string_view::npos) return false;
  std::size_t end = begin + 1;
  while (true) {  // the first quote after an even run of backslashes closes the literal
    end = s.find('"', end);
    if (end == std::string_view::npos) return false;
    std::size_t backslashes = 0;
    while (s[end - 1 - backslashes] == '\\') ++backslashes;  // stops at the opening quote
    if (backslashes % 2 == 0) break;
    ++end;
  }
  const std::size_t next = s.find_first_not_of(" \t\r\n", end + 1);
  literal.begin = begin;
  literal.end = end + 1;
  literal.escaped = std::memchr(s.data() + begin + 1, '\\', end - begin - 1) != nullptr;
  literal.is_key = next != std::string_view::npos && s[next] == ':';
  return true;
}

// True when a regex may assert the start or end of its text (^, $, \A, \z), which a search
// of several texts joined together would not see. The built-in rules' only `$` follows a
// delimiter class that kSeparator's newline satisfies.
bool may_anchor(std::string_view regex) {
  for (std::size_t i = 0; i < regex.size(); ++i) {
    const char c = regex[i];
    if (c == '\\') {
      if (i + 1 < regex.size() && (regex[i + 1] == 'A' || regex[i + 1] == 'z')) return true;
      ++i;
    } else if (c == '[') {  // a class: its ^ negates, nothing in it anchors
      ++i;
      if (i < regex.size() && regex[i] == '^') ++i;
      if (i < regex.size() && regex[i] == ']') ++i;
      while (i < regex.size() && regex[i] != ']') i += regex[i] == '\\' ? 2 : 1;
    } else if (c == '^' || c == '$') {
      return true;
    }
  }
  return false;
}

// True when every byte of `record` outside its string literals is JSON syntax: whitespace,
// punctuation, numbers, true, false, null. Every built-in rule needs a letter none of those
// has (each starts with a literal such as "ghp_", "AKIA", "aws", "password", "-----BEGIN",
// "bearer"), so searching such bytes with the strings blanked cannot find anything.
bool only_json_syntax_outside(std::string_view record, const Places& literals) {
  static constexpr std::string_view kSyntax = " \t\r\n{}[]:,0123456789+-.eEtruefalsn";
  auto syntax = [](std::string_view bytes) {
    return bytes.find_first_not_of(kSyntax) == std::string_view::npos;
  };
  std::size_t from = 0;
  for (auto [b, e] : literals) {
    if (!syntax(record.substr(from, b - from))) return false;
    from = e;
  }
  return syntax(record.substr(from));
}

// Edits sorted by position and disjoint, applied in one pass.
void apply(std::string& s, std::vector<Edit> edits) {
  if (edits.empty()) return;
  std::sort(edits.begin(), edits.end(),
            [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
  std::string out;
  out.reserve(s.size());
  std::size_t copied = 0;
  for (auto& e : edits) {
    out.append(s, copied, e.begin - copied);
    out += e.with;
    copied = e.end;
  }
  out.append(s, copied);
  s = std::move(out);
}

// A span inside raw (still escaped) JSON string content must not cut an escape sequence.
void keep_escapes_whole(std::string_view raw, Span& span) {
  auto escaping_backslash_before = [&](std::size_t at) {
    std::size_t n = 0;
    while (at > n && raw[at - 1 - n] == '\\') ++n;
    return n % 2 == 1;
  };
  if (span.begin > 0 && escaping_backslash_before(span.begin)) --span.begin;
  if (span.end > 0 && escaping_backslash_before(span.end)) {
    span.end = std::min(raw.size(), span.end + (raw[span.end] == 'u' ? 5 : 1));
  }
}

}  // namespace

struct Redactor::Rules {
  struct Rule {
    std::string id;
    std::unique_ptr<RE2> re;
    int group;
  };
  std::vector<Rule> list;
  std::unique_ptr<RE2::Set> set;
  std::vector<std::unique_ptr<RE2>> allow;
  // The rules find in joined texts what they find in each text (see kSeparator), so a text
  // whose joined search finds nothing needs no search of its own.
  bool joinable = true;
  bool builtin_only = true;  // no configured rules (see only_json_syntax_outside)

  bool allowed(re2::StringPiece secret) const {
    return std::any_of(allow.begin(), allow.end(),
                       [&](const auto& re) { return RE2::PartialMatch(secret, *re); });
  }

  std::string marker(int rule) const {
    return "[REDACTED:" + list[static_cast<std::size_t>(rule)].id + "]";
  }

  // True when no rule matches anywhere in `text` (and the set did not run out of memory).
  bool clean(std::string_view text) const {
    if (list.empty()) return true;
    RE2::Set::ErrorInfo info{};
    return !set->Match(piece(text), nullptr, &info) && info.kind != RE2::Set::kOutOfMemory;
  }

  // The secrets in `text`, sorted and merged: the set says which rules match at all, then each
  // of those finds its matches.
  std::vector<Span> find(std::string_view text) const {
    if (list.empty()) return {};
    std::vector<int> hits;
    RE2::Set::ErrorInfo info{};
    if (!set->Match(piece(text), &hits, &info)) {
      if (info.kind != RE2::Set::kOutOfMemory) return {};
      hits.resize(list.size());  // the set ran out of memory: every rule looks for itself
      std::iota(hits.begin(), hits.end(), 0);
    }
    std::vector<Span> spans;
    std::vector<re2::StringPiece> groups;
    for (int i : hits) {
      const Rule& rule = list[static_cast<std::size_t>(i)];
      groups.assign(static_cast<std::size_t>(rule.group) + 1, {});
      std::size_t pos = 0;
      while (pos <= text.size() && rule.re->Match(piece(text), pos, text.size(), RE2::UNANCHORED,
                                                  groups.data(), static_cast<int>(groups.size()))) {
        const re2::StringPiece secret = groups[static_cast<std::size_t>(rule.group)];
        if (!secret.empty() && !allowed(secret)) {
          const auto begin = static_cast<std::size_t>(secret.data() - text.data());
          spans.push_back({begin, begin + secret.size(), i});
        }
        pos = std::max(static_cast<std::size_t>(groups[0].data() - text.data()) + groups[0].size(),
                       pos + 1);
      }
    }
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
      return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
    });
    std::vector<Span> merged;
    for (const Span& s : spans) {
      if (!merged.empty() && s.begin < merged.back().end)
        merged.back().end = std::max(merged.back().end, s.end);
      else
        merged.push_back(s);
    }
    return merged;
  }

  int64_t replace(std::string& s, const std::vector<Span>& spans) const {
    std::vector<Edit> edits;
    edits.reserve(spans.size());
    for (const Span& span : spans) edits.push_back({span.begin, span.end, marker(span.rule)});
    apply(s, std::move(edits));
    return static_cast<int64_t>(spans.size());
  }

  // A decoded string: first the JSON strings nested in it, then the whole of it. A value is
  // searched as `"key": "value"`, so rules that need the name (password = ...) see it.
  int64_t redact_value(const std::string& key, std::string& value, int depth) const {
    int64_t n = 0;
    if (depth < kMaxNesting && value.find('"') != std::string::npos)
      apply(value, string_edits(value, depth + 1, n, nullptr));
    if (key.empty()) return n + replace(value, find(value));
    std::string context = "\"" + key + "\": \"";
    const std::size_t start = context.size();
    context += value;
    context += '"';
    std::vector<Span> spans;
    for (const Span& s : find(context)) {
      const std::size_t b = std::max(s.begin, start), e = std::min(s.end, start + value.size());
      if (b < e) spans.push_back({b - start, e - start, s.rule});
    }
    return n + replace(value, spans);
  }

  // Appends to `out`, each followed by kSeparator, the texts redact_value(key, value, depth)
  // searches; returns where `value` itself starts in `out`.
  std::size_t gather_value(std::string_view key, std::string_view value, int depth,
                           std::string& out) const {
    if (depth < kMaxNesting && value.find('"') != std::string_view::npos)
      gather_strings(value, depth + 1, out, nullptr, nullptr);
    if (!key.empty()) {
      out += '"';
      out += key;
      out += "\": \"";
    }
    const std::size_t at = out.size();
    out += value;
    if (!key.empty()) out += '"';
    out += kSeparator;
    return at;
  }

  // gather_value for each string literal of `s`, as string_edits searches them. The literals'
  // places in `s` go to `literals`, their decoded texts' places in `out` to `strings`.
  void gather_strings(std::string_view s, int depth, std::string& out, Places* literals,
                      Places* strings) const {
    std::string key, decoded;
    Literal literal;
    for (std::size_t i = 0; next_literal(s, i, literal); i = literal.end) {
      if (literals) literals->emplace_back(literal.begin, literal.end);
      std::string_view text = literal.contents(s);
      if (depth > 0 && !literal.escaped && (literal.is_key || key.empty())) {
        // Searched alone, a nested string without escapes or member name is a quoted part of
        // the text around it, which is searched too: whatever a rule finds in it, it finds there.
        if (literal.is_key)
          key.assign(text);
        else
          key.clear();
        continue;
      }
      if (literal.escaped) {
        if (!decode_json_string(text, decoded)) {  // searched raw
          out += text;
          out += kSeparator;
          key.clear();
          continue;
        }
        text = decoded;
      }
      const std::string_view context = literal.is_key ? std::string_view() : key;
      const std::size_t at = gather_value(context, text, depth, out);
      if (strings) strings->emplace_back(at, text.size());
      if (literal.is_key)
        key.assign(text);
      else
        key.clear();
    }
  }

  // Edits replacing each JSON string literal of `s` whose decoded contents held a secret; the
  // literal's place is added to `tokens` when given. An unterminated literal is left alone.
  std::vector<Edit> string_edits(std::string_view s, int depth, int64_t& count,
                                 Places* tokens) const {
    std::vector<Edit> edits;
    std::string key;  // the decoded name of the member whose value comes next
    Literal literal;
    for (std::size_t i = 0; next_literal(s, i, literal); i = literal.end) {
      if (tokens) tokens->emplace_back(literal.begin, literal.end);
      const std::string_view contents = literal.contents(s);
      std::string decoded;
      if (!literal.escaped) {
        decoded.assign(contents);
      } else if (!decode_json_string(contents, decoded)) {
        // Not decodable: search the raw contents, keeping escape sequences whole.
        std::string raw(contents);
        std::vector<Span> spans = find(raw);
        for (Span& span : spans) keep_escapes_whole(raw, span);
        count += replace(raw, spans);
        if (!spans.empty()) edits.push_back({literal.begin + 1, literal.end - 1, std::move(raw)});
        key.clear();
        continue;
      }
      std::string name = literal.is_key ? decoded : std::string();
      const int64_t n = redact_value(literal.is_key ? std::string() : key, decoded, depth);
      if (n > 0) {
        edits.push_back({literal.begin, literal.end,
                         boost::json::serialize(boost::json::string_view(decoded))});
        count += n;
      }
      key = std::move(name);
    }
    return edits;
  }
};

const std::vector<SecretRule>& builtin_secret_rules() {
  static const std::vector<SecretRule> rules = parse_tsv(builtin_secret_patterns_tsv());
  return rules;
}

std::string redaction_rule_problem(const RedactionRuleConfig& rule) {
  if (!valid_rule_id(rule.id))
    return fmt::format("rule id '{}' must be 1 to 64 characters of a-z, 0-9, '-' and '_'", rule.id);
  for (const auto& b : builtin_secret_rules())
    if (b.id == rule.id)
      return fmt::format("rule id '{}' is taken by a built-in rule; choose another id", rule.id);
  RE2 re(rule.regex, rule_options());
  if (!re.ok())
    return fmt::format("the regex of rule '{}' is not valid RE2 syntax: {}", rule.id, re.error());
  if (rule.group < -1 || rule.group > re.NumberOfCapturingGroups())
    return fmt::format("rule '{}' names group {}, but its regex has {} capturing group(s)", rule.id,
                       rule.group, re.NumberOfCapturingGroups());
  return {};
}

std::string redaction_allow_problem(const std::string& regex) {
  RE2 re(regex, rule_options());
  return re.ok() ? std::string()
                 : fmt::format("'{}' is not valid RE2 syntax: {}", regex, re.error());
}

Redactor::Redactor(const RedactionConfig& config) : rules_(std::make_unique<Rules>()) {
  RE2::Options set_options = rule_options();
  set_options.set_max_mem(int64_t{64} << 20);  // 42 rules with long counted repeats
  rules_->set = std::make_unique<RE2::Set>(set_options, RE2::UNANCHORED);
  auto add = [&](const std::string& id, const std::string& regex, int group) {
    auto re = std::make_unique<RE2>(regex, rule_options());
    std::string error;
    if (!re->ok() || rules_->set->Add(piece(regex), &error) < 0)
      throw std::runtime_error(fmt::format("redaction rule '{}' does not compile: {}", id,
                                           re->ok() ? error : re->error()));
    if (group < 0) group = re->NumberOfCapturingGroups() > 0 ? 1 : 0;
    rules_->list.push_back({id, std::move(re), group});
  };
  for (const auto& r : builtin_secret_rules())
    if (r.confidence != "low" &&
        std::find(config.disable.begin(), config.disable.end(), r.id) == config.disable.end())
      add(r.id, r.regex, r.group);
  for (const auto& r : config.rules) {
    rules_->builtin_only = false;
    add(r.id, r.regex, r.group);
    if (may_anchor(r.regex)) rules_->joinable = false;
  }
  if (!rules_->set->Compile())
    throw std::runtime_error("the redaction rules could not be compiled together (out of memory)");
  std::vector<std::string> allow(std::begin(kBuiltinAllow), std::end(kBuiltinAllow));
  allow.insert(allow.end(), config.allow.begin(), config.allow.end());
  for (const auto& regex : allow) {
    auto re = std::make_unique<RE2>(regex, rule_options());
    if (!re->ok())
      throw std::runtime_error(
          fmt::format("redaction allow pattern '{}' does not compile: {}", regex, re->error()));
    rules_->allow.push_back(std::move(re));
  }
}

Redactor::~Redactor() = default;

bool RecordScan::covers(std::string_view text) const {
  if (!clean_) return false;
  for (auto [at, size] : strings_)
    if (size == text.size() && std::string_view(searched_).substr(at, size) == text) return true;
  return false;
}

int64_t Redactor::redact_text(std::string& text, const RecordScan* from) const {
  // A clean record's string was searched in the record, in its member's context: the rules
  // (no anchors, see kSeparator) find nothing in it alone either.
  if (from && from->covers(text)) return 0;
  if (rules_->joinable && text.find('"') != std::string::npos) {  // nested JSON strings
    std::string joined;
    rules_->gather_value({}, text, 0, joined);
    if (rules_->clean(joined)) return 0;
  }
  return rules_->redact_value({}, text, 0);
}

int64_t Redactor::redact_record(std::string& record, RecordScan* scan) const {
  RecordScan own;
  if (!scan) scan = &own;
  scan->clean_ = false;
  scan->searched_.clear();
  scan->strings_.clear();
  const std::size_t first = record.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || (record[first] != '{' && record[first] != '['))
    return redact_text(record);
  if (rules_->joinable) {
    // Every text the search below makes, joined, and the record with its strings blanked: one
    // pass of the rule set; most records hold no secret and need nothing more.
    Places literals;
    std::string& joined = scan->searched_;
    rules_->gather_strings(record, 0, joined, &literals, &scan->strings_);
    if (!rules_->builtin_only || !only_json_syntax_outside(record, literals)) {
      const std::size_t base = joined.size();
      joined += record;
      for (auto [b, e] : literals)
        std::fill(joined.begin() + static_cast<std::ptrdiff_t>(base + b + 1),
                  joined.begin() + static_cast<std::ptrdiff_t>(base + e - 1), ' ');
    }
    if (rules_->clean(joined)) {
      scan->clean_ = true;
      return 0;
    }
  }
  int64_t count = 0;
  Places strings;
  std::vector<Edit> edits = rules_->string_edits(record, 0, count, &strings);
  // A torn or hand-made record may hold a secret outside any string: search the bytes between
  // the strings, with the strings' contents blanked so that no match can reach into them.
  std::string outside = record;
  for (auto [b, e] : strings)
    std::fill(outside.begin() + static_cast<std::ptrdiff_t>(b) + 1,
              outside.begin() + static_cast<std::ptrdiff_t>(e) - 1, ' ');
  for (Span s : rules_->find(outside)) {
    auto next = std::lower_bound(strings.begin(), strings.end(), std::make_pair(s.begin, s.begin));
    if (next != strings.begin() && std::prev(next)->second > s.begin) continue;  // starts inside
    if (next != strings.end()) s.end = std::min(s.end, next->first);
    if (s.end <= s.begin) continue;
    edits.push_back({s.begin, s.end, rules_->marker(s.rule)});
    ++count;
  }
  apply(record, std::move(edits));
  return count;
}

std::vector<std::string> Redactor::rule_ids() const {
  std::vector<std::string> ids;
  for (const auto& r : rules_->list) ids.push_back(r.id);
  return ids;
}

}  // namespace helix
