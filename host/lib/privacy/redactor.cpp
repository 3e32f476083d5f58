#include "privacy/redactor.hpp"

#include "base/text.hpp"
#include "privacy/base64.hpp"
#include "privacy/rule_prefilter.hpp"

#include <fmt/format.h>
#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/json.hpp>
#include <cmath>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <numeric>
#include <stdexcept>

namespace helix {
namespace {

// JSON inside a JSON string inside ... (Codex keeps tool arguments and outputs as JSON text;
// tool outputs quote them again).
constexpr int kMaxNesting = 16;

// Joins the texts of one search. Rules are compiled in multi-line mode, so the last newline
// starts a line for a rule that wants one (^, \b) and the first ends a token for every rule
// that needs a delimiter or a line's end after it; the control character stops the rules that
// skip whitespace (password\s*=). A match in one text is therefore found in the joined texts.
constexpr std::string_view kSeparator = "\n\x01\n";

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
std::string_view view(re2::StringPiece s) { return {s.data(), s.size()}; }

// A regex compiled the first time a text needs it: most rules never run in a sweep.
class LazyRegex {
 public:
  explicit LazyRegex(std::string pattern) : pattern_(std::move(pattern)) {}
  const std::string& pattern() const { return pattern_; }
  // Throws std::runtime_error when the pattern does not compile (the config check and the
  // tests of the built-in rules make sure it does).
  const RE2& get() const {
    std::call_once(once_, [&] {
      auto re = std::make_unique<RE2>(pattern_, rule_options());
      if (!re->ok())
        throw std::runtime_error(
            fmt::format("redaction pattern '{}' does not compile: {}", pattern_, re->error()));
      re_ = std::move(re);
    });
    return *re_;
  }

 private:
  std::string pattern_;
  mutable std::once_flag once_;
  mutable std::unique_ptr<RE2> re_;
};

// A value never redacted (secret_allow.tsv, [[redaction.allow]]).
struct Allow {
  AllowTarget target = AllowTarget::kSecret;
  bool stopword = false;
  std::string value;                 // the stopword
  std::unique_ptr<LazyRegex> regex;  // or the regex
};

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// Shannon entropy in bits a byte, as gitleaks measures a secret (detect/utils.go).
double shannon_entropy(std::string_view s) {
  if (s.empty()) return 0;
  std::array<std::size_t, 256> counts{};
  for (char c : s) ++counts[static_cast<unsigned char>(c)];
  double entropy = 0;
  for (std::size_t n : counts) {
    if (n == 0) continue;
    const double p = static_cast<double>(n) / static_cast<double>(s.size());
    entropy -= p * std::log2(p);
  }
  return entropy;
}

// True when a configured regex asserts the absolute start or end of its text (\A, \z, or ^
// and $ with multi-line mode turned off by a (?-m) flag), which a search of several texts
// joined together would not see (every rule is compiled in multi-line mode, where ^ and $ are
// line anchors).
// A "(?flags)" or "(?flags:" group at regex[i] that turns multi-line mode off ("-m").
bool clears_multiline(std::string_view regex, std::size_t i) {
  const std::size_t end = regex.find_first_of(":)", i);
  const std::string_view flags =
      regex.substr(i + 2, end == std::string_view::npos ? 0 : end - i - 2);
  const std::size_t minus = flags.find('-');
  return minus != std::string_view::npos && flags.find('m', minus) != std::string_view::npos;
}

bool may_anchor(std::string_view regex) {
  for (std::size_t i = 0; i + 1 < regex.size(); ++i) {
    if (regex[i] == '\\') {
      if (regex[i + 1] == 'A' || regex[i + 1] == 'z') return true;
      ++i;
    } else if (regex.compare(i, 2, "(?") == 0 && clears_multiline(regex, i)) {
      return true;
    }
  }
  return false;
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

// True when every byte of `record` outside its string literals is JSON syntax: whitespace,
// punctuation, numbers, true, false, null. No built-in rule finds anything in such bytes (each
// needs a letter or a sequence none of them has: "ghp_", "AKIA", "password", "-----BEGIN";
// tests/test_redactor.cpp checks it), so they need no search with the strings blanked.
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
    Rule(std::string rule_id, std::string pattern)
        : id(std::move(rule_id)), regex(std::move(pattern)) {}
    std::string id;
    LazyRegex regex;  // in multi-line mode
    int group = -1;
    double entropy = 0;
    bool decode_base64 = false;
    bool anchored = false;              // \A or \z: not searched in joined texts
    std::vector<std::string> keywords;  // lower case; none: every text
    std::vector<std::string> required;  // lower case: every match holds one (prefilter)
    int context = 0;                    // see SecretRule::context
    std::vector<const Allow*> allows;   // its own, then those of every rule
  };
  std::deque<Rule> list;
  std::deque<Allow> allows;
  RuleChoice choice = RuleChoice::kPrefilter;
  // kPrefilter: built by the first text that needs it (a sweep that reads nothing new, only
  // probes or stats, never pays its Vectorscan compile), or by prepare().
  mutable std::unique_ptr<RulePrefilter> prefilter;
  mutable std::once_flag prefilter_once;
  mutable std::atomic<bool> prefilter_built{false};
  std::unique_ptr<RE2::Set> set;  // kRe2Set: every rule
  bool builtin_only = true;       // no configured rules (see only_json_syntax_outside)

  std::string marker(int rule) const {
    return "[REDACTED:" + list[static_cast<std::size_t>(rule)].id + "]";
  }

  static bool has_keyword(const Rule& rule, std::string_view lower) {
    return rule.keywords.empty() ||
           std::any_of(rule.keywords.begin(), rule.keywords.end(), [&](const std::string& k) {
             return lower.find(k) != std::string_view::npos;
           });
  }

  const RulePrefilter& built_prefilter() const {
    std::call_once(prefilter_once, [&] {
      std::vector<RulePrefilter::Rule> inputs;
      for (const auto& rule : list)
        inputs.push_back({rule.keywords, rule.required, rule.regex.pattern()});
      prefilter = std::make_unique<RulePrefilter>(inputs);
      prefilter_built = true;
    });
    return *prefilter;
  }

  // The rules that may find something in `text`, ascending: a superset of those that do.
  void candidates(std::string_view text, std::vector<int>& out) const {
    if (choice == RuleChoice::kPrefilter) return built_prefilter().candidates(text, out);
    out.clear();
    std::vector<int> hits;
    if (choice == RuleChoice::kEveryRule) {
      hits.resize(list.size());
      std::iota(hits.begin(), hits.end(), 0);
    } else {  // the rules the set says match, and the anchored ones (its verdict on joined
              // texts does not hold for them)
      RE2::Set::ErrorInfo info{};
      if (!set->Match(piece(text), &hits, &info) && info.kind == RE2::Set::kOutOfMemory) {
        hits.resize(list.size());  // the set ran out of memory: every rule looks for itself
        std::iota(hits.begin(), hits.end(), 0);
      }
      for (std::size_t i = 0; i < list.size(); ++i)
        if (list[i].anchored) hits.push_back(static_cast<int>(i));
      std::sort(hits.begin(), hits.end());
      hits.erase(std::unique(hits.begin(), hits.end()), hits.end());
    }
    const std::string lower = ascii_lower(text);
    for (int i : hits)
      if (has_keyword(list[static_cast<std::size_t>(i)], lower)) out.push_back(i);
  }

  // True when no rule can find anything in `text` (joined texts: see kSeparator).
  bool clean(std::string_view text) const {
    std::vector<int> rules;
    candidates(text, rules);
    if (rules.empty()) return true;
    if (std::any_of(rules.begin(), rules.end(),
                    [&](int i) { return list[static_cast<std::size_t>(i)].anchored; }))
      return false;
    std::vector<int> matching;
    which_match(text, rules, matching);
    return matching.empty();
  }

  // The members of `rules` whose regex matches somewhere in `text`, ascending, in `matching`.
  void which_match(std::string_view text, const std::vector<int>& rules,
                   std::vector<int>& matching) const {
    matching.clear();
    for (int i : rules)
      if (list[static_cast<std::size_t>(i)].regex.get().Match(piece(text), 0, text.size(),
                                                              RE2::UNANCHORED, nullptr, 0))
        matching.push_back(i);
  }

  static re2::StringPiece secret_of(const Rule& rule, const std::vector<re2::StringPiece>& groups) {
    if (rule.group > 0) return groups[static_cast<std::size_t>(rule.group)];
    if (rule.group < 0)
      for (std::size_t g = 1; g < groups.size(); ++g)
        if (!groups[g].empty()) return groups[g];
    return groups[0];
  }

  // The match as gitleaks reads it: `context` more characters of a name before it.
  static std::string_view gitleaks_match(const Rule& rule, std::string_view text,
                                         std::string_view match) {
    auto begin = static_cast<std::size_t>(match.data() - text.data());
    const std::size_t end = begin + match.size();
    for (int n = 0; n < rule.context && begin > 0; ++n) {
      const char c = text[begin - 1];
      const bool name = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
      if (!name) break;
      --begin;
    }
    return text.substr(begin, end - begin);
  }

  static bool allowed(const Allow& allow, std::string_view text, std::string_view match,
                      std::string_view secret, const std::string& lower_secret) {
    if (allow.stopword) return lower_secret.find(allow.value) != std::string::npos;
    std::string_view target = secret;
    if (allow.target == AllowTarget::kMatch) target = match;
    if (allow.target == AllowTarget::kLine) {
      const std::size_t at = static_cast<std::size_t>(match.data() - text.data());
      const std::size_t begin = text.rfind('\n', at);
      const std::size_t end = text.find('\n', at + match.size());
      target = text.substr(begin == std::string_view::npos ? 0 : begin + 1,
                           end == std::string_view::npos
                               ? std::string_view::npos
                               : end - (begin == std::string_view::npos ? 0 : begin + 1));
    }
    return RE2::PartialMatch(piece(target), allow.regex->get());
  }

  // Whether a match is a secret: entropy, allow entries, and for a base64 rule, what decoding
  // it reveals.
  bool is_secret(const Rule& rule, std::string_view text, std::string_view match,
                 std::string_view secret) const {
    if (rule.entropy > 0 && shannon_entropy(secret) <= rule.entropy) return false;
    const std::string lower_secret = ascii_lower(secret);
    const std::string_view whole = gitleaks_match(rule, text, match);
    for (const Allow* allow : rule.allows)
      if (allowed(*allow, text, whole, secret, lower_secret)) return false;
    if (rule.decode_base64) return decodes_to_secret(secret);
    return true;
  }

  // True when `run` (base64, perhaps with a few characters of text before the encoding, as in
  // a path) decodes to a secret at one of the four alignments of its first quantum.
  bool decodes_to_secret(std::string_view run) const {
    for (std::size_t skip = 0; skip < 4 && skip < run.size(); ++skip)
      if (!find(base64_decode_lines(run.substr(skip)), false).empty()) return true;
    return false;
  }

  // Every secret `rule` finds in `text`, appended to `spans`.
  void scan(int index, std::string_view text, std::vector<Span>& spans) const {
    const Rule& rule = list[static_cast<std::size_t>(index)];
    const RE2& re = rule.regex.get();
    std::vector<re2::StringPiece> groups(static_cast<std::size_t>(re.NumberOfCapturingGroups()) +
                                         1);
    std::size_t pos = 0;
    while (pos <= text.size() && re.Match(piece(text), pos, text.size(), RE2::UNANCHORED,
                                          groups.data(), static_cast<int>(groups.size()))) {
      const re2::StringPiece secret = secret_of(rule, groups);
      const auto match_begin = static_cast<std::size_t>(groups[0].data() - text.data());
      if (!secret.empty() && is_secret(rule, text, view(groups[0]), view(secret))) {
        const auto begin = static_cast<std::size_t>(secret.data() - text.data());
        spans.push_back({begin, begin + secret.size(), index});
        pos = std::max(match_begin + groups[0].size(), pos + 1);
      } else {
        // Not a secret (allowed, too little entropy): it must not hide one that starts inside
        // it ("token>access=<key>" is first read as the value of "token").
        pos = std::max(match_begin + 1, pos + 1);
      }
    }
  }

  // The secrets in `text`, sorted and merged. `decode`: base64 rules run too (not inside what
  // one of them decoded).
  std::vector<Span> find(std::string_view text, bool decode) const {
    if (list.empty()) return {};
    std::vector<int> rules;
    candidates(text, rules);
    std::vector<Span> spans;
    for (int i : rules)
      if (decode || !list[static_cast<std::size_t>(i)].decode_base64) scan(i, text, spans);
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
    if (key.empty()) return n + replace(value, find(value, true));
    std::string context = "\"" + key + "\": \"";
    const std::size_t start = context.size();
    context += value;
    context += '"';
    std::vector<Span> spans;
    for (const Span& s : find(context, true)) {
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
        std::vector<Span> spans = find(raw, true);
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

namespace {
// A [[redaction.rules]] entry as a rule: its regex compiled once to check it and to count its
// groups (the secret is group 1 when there is one and no group is named).
SecretRule user_rule(const RedactionRuleConfig& c) {
  RE2 re(c.regex, rule_options());
  if (!re.ok())
    throw std::runtime_error(
        fmt::format("redaction rule '{}' does not compile: {}", c.id, re.error()));
  SecretRule spec;
  spec.id = c.id;
  spec.regex = c.regex;
  spec.group = c.group >= 0 ? c.group : (re.NumberOfCapturingGroups() > 0 ? 1 : 0);
  return spec;
}
}  // namespace

Redactor::Redactor(const RedactionConfig& config, const RedactorOptions& options)
    : rules_(std::make_unique<Rules>()) {
  Rules& r = *rules_;
  const auto& builtin = options.rules ? *options.rules : builtin_secret_rules();
  const auto& builtin_allows = options.allows ? *options.allows : builtin_secret_allows();
  std::map<std::string, std::vector<const Allow*>, std::less<>> allows_of;  // "*": every rule
  auto add_allow = [&](const std::string& rule, AllowTarget target, bool stopword,
                       const std::string& value) {
    Allow& a = r.allows.emplace_back();
    a.target = target;
    a.stopword = stopword;
    if (stopword)
      a.value = value;
    else
      a.regex = std::make_unique<LazyRegex>(value);
    allows_of[rule].push_back(&a);
  };
  for (const auto& a : builtin_allows) add_allow(a.rule, a.target, a.stopword, a.value);
  for (const auto& a : config.allow)
    for (const auto& rule : a.rules) add_allow(rule, AllowTarget::kSecret, false, a.regex);
  auto add_rule = [&](const SecretRule& spec) {
    Rules::Rule& rule = r.list.emplace_back(spec.id, "(?m)" + spec.regex);
    rule.group = spec.group;
    rule.entropy = spec.entropy;
    rule.decode_base64 = spec.decode_base64;
    rule.anchored = may_anchor(spec.regex);
    rule.keywords = spec.keywords;
    rule.required = spec.required;
    rule.context = spec.context;
    const std::string& id = spec.id;
    for (const char* key : {id.c_str(), "*"})
      if (auto it = allows_of.find(key); it != allows_of.end())
        rule.allows.insert(rule.allows.end(), it->second.begin(), it->second.end());
  };
  for (const auto& b : builtin)
    if (std::find(config.disable.begin(), config.disable.end(), b.id) == config.disable.end())
      add_rule(b);
  for (const auto& c : config.rules) {
    r.builtin_only = false;
    add_rule(user_rule(c));
  }
  r.choice = options.choice;
  prepare_choice(r);
}

// How a text's candidate rules are chosen: the keyword prefilter, every rule, or all rules
// compiled together into one RE2::Set.
void Redactor::prepare_choice(Rules& r) {
  if (r.choice == RuleChoice::kPrefilter || r.choice == RuleChoice::kEveryRule) return;
  RE2::Options set_options = rule_options();
  set_options.set_max_mem(int64_t{256} << 20);  // some 250 rules, long counted repeats
  r.set = std::make_unique<RE2::Set>(set_options, RE2::UNANCHORED);
  for (const auto& rule : r.list) {
    std::string error;
    if (r.set->Add(piece(rule.regex.pattern()), &error) < 0)
      throw std::runtime_error(
          fmt::format("redaction rule '{}' does not compile: {}", rule.id, error));
  }
  if (!r.set->Compile())
    throw std::runtime_error("the redaction rules could not be compiled together (out of memory)");
}

Redactor::~Redactor() = default;

void Redactor::prepare() const {
  if (rules_->choice == RuleChoice::kPrefilter) rules_->built_prefilter();
}

bool Redactor::prepared() const {
  return rules_->choice != RuleChoice::kPrefilter || rules_->prefilter_built;
}

bool RecordScan::covers(std::string_view text) const {
  if (!clean_) return false;
  for (auto [at, size] : strings_)
    if (size == text.size() && std::string_view(searched_).substr(at, size) == text) return true;
  return false;
}

int64_t Redactor::redact_text(std::string& text, const RecordScan* from) const {
  // A clean record's string was searched in the record, in its member's context: the rules
  // (see kSeparator) find nothing in it alone either.
  if (from && from->covers(text)) return 0;
  if (text.find('"') != std::string::npos) {  // nested JSON strings
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
  {
    // Every text the search below makes, joined, and the record with its strings blanked: one
    // pass of the prefilter (and of the rules it names); most records hold no secret and need
    // nothing more.
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
  for (Span s : rules_->find(outside, true)) {
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

std::string Redactor::redacted(std::string_view text) const {
  std::string copy(text);
  redact_text(copy);
  return copy;
}

std::vector<std::string> Redactor::rule_ids() const {
  std::vector<std::string> ids;
  for (const auto& r : rules_->list) ids.push_back(r.id);
  return ids;
}

}  // namespace helix
