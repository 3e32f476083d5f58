// The redactor: the shipped rules are what their sources say and each finds its own sample,
// records stay valid JSON, look-alikes stay, configured rules and allow entries work and cannot
// switch high-confidence rules off, and the keyword prefilter changes nothing (the placements of
// every shape and the false-positive corpus are in test_secret_corpus.cpp).
#define BOOST_TEST_MODULE redactor
#include <boost/test/unit_test.hpp>

#include "planted_secrets.hpp"
#include "privacy/base64.hpp"
#include "privacy/redactor.hpp"

#include <fmt/format.h>
#include <re2/re2.h>
#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <random>
#include <set>

namespace json = boost::json;
using helix::Redactor;
using helix::test::planted_secrets;
using helix::test::PlantedSecret;

namespace {

const Redactor& redactor() {
  static const Redactor r;
  return r;
}

// The secret is gone when none of its random runs is left.
bool gone(const PlantedSecret& p, const std::string& text) {
  for (const auto& part : p.random_parts)
    if (text.find(part) != std::string::npos) return false;
  return true;
}

std::string quoted(const std::string& s) { return json::serialize(json::string_view(s)); }

const PlantedSecret& planted(const std::string& rule) {
  static const auto all = planted_secrets();
  for (const auto& p : all)
    if (p.rule == rule) return p;
  throw std::runtime_error("no planted secret for " + rule);
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_shipped_rules_compile_and_say_where_they_come_from) {
  const auto& rules = helix::builtin_secret_rules();
  BOOST_TEST(rules.size() == 250u);  // gitleaks' 221 with a regex and helix's 29
  std::set<std::string> ids;
  int from_gitleaks = 0, generic = 0;
  for (const auto& r : rules) {
    BOOST_TEST(ids.insert(r.id).second, r.id << " twice");
    BOOST_TEST(!r.source.empty(), r.id);
    from_gitleaks += r.source.starts_with("gitleaks config/gitleaks.toml " + r.id);
    generic += r.confidence == helix::Confidence::kGeneric;
    RE2 re("(?m)" + r.regex);
    BOOST_TEST(re.ok(), r.id << ": " << re.error());
    BOOST_TEST(!r.keywords.empty(), r.id << ": every built-in rule has keywords");
    for (const auto& k : r.keywords)
      BOOST_TEST(k.find_first_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ") == std::string::npos, r.id);
    BOOST_TEST((r.sample != "-" || r.decode_base64), r.id << ": no sample");
  }
  BOOST_TEST(from_gitleaks == 221);
  BOOST_TEST_MESSAGE(rules.size() << " rules, " << generic << " generic");
  for (const auto& a : helix::builtin_secret_allows()) {
    BOOST_TEST((a.rule == "*" || ids.count(a.rule) == 1u), a.rule);
    if (!a.stopword) BOOST_TEST(RE2(a.value).ok(), a.rule << ": " << a.value);
  }
  BOOST_TEST(redactor().rule_ids().size() == rules.size());
}

// Each rule alone (with its allow entries) redacts random secrets made from its sample: its
// regex, keywords, entropy floor and allow entries agree with the sample.
BOOST_AUTO_TEST_CASE(every_rule_finds_its_own_sample) {
  std::mt19937_64 random(11);
  for (const auto& rule : helix::builtin_secret_rules()) {
    if (rule.sample == "-") continue;
    const std::vector<helix::SecretRule> one = {rule};
    const Redactor alone({}, {.rules = &one});
    for (int round = 0; round < 8; ++round) {
      const auto s = helix::expand_secret_sample(rule.sample, random);
      std::string text = s.text;
      BOOST_TEST(alone.redact_text(text) >= 1, rule.id << ": " << s.text);
      BOOST_TEST(text.find("[REDACTED:" + rule.id + "]") != std::string::npos, rule.id);
      for (const auto& part : s.random_parts)
        BOOST_TEST(text.find(part) == std::string::npos, rule.id << ": " << text);
    }
  }
}

BOOST_AUTO_TEST_CASE(base64_round_trips_and_decodes_each_line_from_its_start) {
  for (std::string s : {"", "a", "ab", "abc", "abcd", "ghp_0123456789\n\x01\xff"})
    BOOST_TEST(helix::base64_decode_lines(helix::base64_encode(s)) == s);
  BOOST_TEST(helix::base64_encode("ghp_") == "Z2hwXw==");
  // A short line of text before the encoding does not shift it.
  BOOST_TEST(helix::base64_decode_lines("env\n" + helix::base64_encode("secret")).substr(2) ==
             "secret");
}

BOOST_AUTO_TEST_CASE(base64_encoded_secrets_are_decoded_and_redacted_whole) {
  const auto all = planted_secrets();
  int encoded = 0;
  for (const auto& p : all) {
    if (p.rule != "base64-encoded-secret") continue;
    ++encoded;
    std::string text = "data: " + p.text + "\n";
    BOOST_TEST(redactor().redact_text(text) >= 1, p.text);
    BOOST_TEST(gone(p, text), text);
    BOOST_TEST(text.find("[REDACTED:base64-encoded-secret]") != std::string::npos);
  }
  BOOST_TEST(encoded == 9);
  // A base64 run that holds a marker but decodes to no secret is kept: "ghp_" and a short tail.
  std::string harmless = "blob " + helix::base64_encode("xghp_short and nothing else") + " end";
  const std::string before = harmless;
  BOOST_TEST(redactor().redact_text(harmless) == 0);
  BOOST_TEST(harmless == before);
}

BOOST_AUTO_TEST_CASE(records_stay_json_and_lose_every_secret) {
  for (const auto& p : planted_secrets(5)) {
    const std::string inner = json::serialize(json::object{{"cmd", "cat .env\n" + p.text}});
    for (std::string record :
         {fmt::format(R"({{"type":"tool_result","content":{}}})", quoted("ok\n" + p.text + "\n")),
          fmt::format(R"({{"command":{},"n":1}})", quoted("export X=\"" + p.text + "\"")),
          fmt::format(R"({{"arguments":{}}})", quoted(inner)),
          fmt::format(R"(["item", {}, 3])", quoted(p.text))}) {
      BOOST_TEST(redactor().redact_record(record) >= 1, p.rule << ": " << record);
      BOOST_TEST(gone(p, record), p.rule << ": " << record);
      boost::system::error_code ec;
      json::parse(record, ec);
      BOOST_TEST(!ec, p.rule << ": no longer JSON: " << record);
    }
  }
}

BOOST_AUTO_TEST_CASE(lookalikes_and_placeholders_are_left_alone) {
  for (const auto& text : helix::test::secret_lookalikes()) {
    std::string copy = text;
    BOOST_TEST(redactor().redact_text(copy) == 0, text << " -> " << copy);
    BOOST_TEST(copy == text);
    std::string record = R"({"text":)" + quoted(text) + "}";
    const std::string before = record;
    BOOST_TEST(redactor().redact_record(record) == 0, text);
    BOOST_TEST(record == before);
  }
}

BOOST_AUTO_TEST_CASE(redaction_is_idempotent_and_names_the_rule) {
  const auto shapes = planted_secrets(100);
  std::string all;
  for (const auto& p : shapes) all += p.text + "\n";
  std::string once = all;
  const int64_t n = redactor().redact_text(once);
  BOOST_TEST(n >= static_cast<int64_t>(shapes.size()) / 2);  // neighbours may merge into one
  std::string twice = once;
  BOOST_TEST(redactor().redact_text(twice) == 0);
  BOOST_TEST(twice == once);
  BOOST_TEST(once.find("[REDACTED:github-pat]") != std::string::npos);
  std::string url = "git clone ftp://deploy:" + planted("github-pat").secret.substr(4) + "@host/r";
  BOOST_TEST(redactor().redact_text(url) == 1);
  BOOST_TEST(url == "git clone ftp://deploy:[REDACTED:url-credentials]@host/r");
}

BOOST_AUTO_TEST_CASE(escaped_and_undecodable_json_strings_are_handled) {
  const auto& p = planted("github-pat");
  // A writer that escapes letters: the decoded string holds the secret.
  std::string escaped = R"({"t":"\u0067)" + p.secret.substr(1) + R"("})";
  BOOST_TEST(redactor().redact_record(escaped) == 1);
  BOOST_TEST(gone(p, escaped));
  // An invalid escape (\q) makes the string undecodable: searched raw, escapes kept whole.
  std::string broken = R"({"t":"a\q )" + p.secret + R"(\n"})";
  BOOST_TEST(redactor().redact_record(broken) == 1);
  BOOST_TEST(gone(p, broken));
  BOOST_TEST(broken.find(R"(\n"})") != std::string::npos);
  // A torn record (no closing quote) and a bare secret outside any string.
  std::string torn = R"({"t":"abc )" + p.secret;
  BOOST_TEST(redactor().redact_record(torn) == 1);
  BOOST_TEST(gone(p, torn));
  std::string bare = "{ " + p.secret + " }";
  BOOST_TEST(redactor().redact_record(bare) == 1);
  BOOST_TEST(gone(p, bare));
  // A key-value secret split over a JSON member ("password": "...") is still found.
  const auto& pw = planted("password-assignment");
  std::string member = R"({"password": ")" + pw.secret + R"(", "user": "app"})";
  BOOST_TEST(redactor().redact_record(member) == 1);
  BOOST_TEST(gone(pw, member));
}

// A record's strings are searched together in one pass (joined by a separator) before any is
// searched alone: a secret at either end of a string, next to another string, as a member name,
// or with its characters written as escape sequences is found all the same.
BOOST_AUTO_TEST_CASE(secrets_at_string_boundaries_and_split_by_escapes_are_found) {
  for (const auto& p : planted_secrets(9)) {
    std::string escaped = quoted(p.text);  // "/" as "\/" and a letter as "\u00XX"
    for (std::size_t at = 0; (at = escaped.find('/', at)) != std::string::npos; at += 2)
      escaped.replace(at, 1, "\\/");
    const std::size_t letter =
        escaped.find_first_of("abcdefghijklmnopqrstuvwxyz", escaped.size() / 2);
    if (letter != std::string::npos)
      escaped.replace(letter, 1, fmt::format("\\u{:04x}", static_cast<int>(escaped[letter])));
    for (std::string record :
         {fmt::format(R"({{"a":{},"b":"xyz0123456789abcdefghij"}})", quoted(p.text)),
          fmt::format(R"({{"a":"cat .env\n{}}})", quoted(p.text).substr(1)),
          fmt::format(R"(["{}", {}, "AKIA"])", "sk-", quoted(p.text)),
          fmt::format(R"({{{}: 1}})", quoted(p.text)),
          fmt::format(R"({{"a":{},"n":2}})", escaped)}) {
      BOOST_TEST(redactor().redact_record(record) >= 1, p.rule << ": " << record);
      BOOST_TEST(gone(p, record), p.rule << ": " << record);
      boost::system::error_code ec;
      json::parse(record, ec);
      BOOST_TEST(!ec, p.rule << ": no longer JSON: " << record);
    }
  }
}

// A record whose bytes outside strings are only JSON syntax skips the search of those bytes
// (redactor.cpp, only_json_syntax_outside): that holds only while no built-in rule can match
// text made of whitespace, punctuation, numbers, true, false and null.
BOOST_AUTO_TEST_CASE(no_builtin_rule_matches_json_syntax_alone) {
  const std::vector<std::string> pieces = {
      " ", "\n", "\t",       "{", "}",    "[",     "]",    ":",     ",",         "\"",
      "0", "7",  "-1.5e+10", "E", "true", "false", "null", "\"\":", "  \"    \""};
  std::mt19937 random(3);
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    while (text.size() < 300) text += pieces[random() % pieces.size()];
    const std::string before = text;
    BOOST_TEST(redactor().redact_text(text) == 0, before);
  }
  // Bytes outside strings that are not JSON syntax are still searched.
  const auto& p = planted("github-pat");
  std::string torn = R"({"a":"b", )" + p.secret + R"( , "c": 1})";
  BOOST_TEST(redactor().redact_record(torn) == 1);
  BOOST_TEST(gone(p, torn));
}

// An event's text copied from a record the redactor found clean is not searched again; a
// text from a record that held a secret, or not among its strings, is searched as usual.
BOOST_AUTO_TEST_CASE(texts_of_a_clean_record_are_covered_by_its_scan) {
  const auto& p = planted("github-pat");
  helix::RecordScan scan;
  std::string clean = R"({"type":"user","text":"ran the tests\nall passed","n":{"k":"v"}})";
  BOOST_TEST(redactor().redact_record(clean, &scan) == 0);
  BOOST_TEST(scan.covers("ran the tests\nall passed"));
  BOOST_TEST(scan.covers("v"));
  BOOST_TEST(!scan.covers("ran the tests"));  // a part of a string is not covered
  std::string text = "ran the tests\nall passed";
  BOOST_TEST(redactor().redact_text(text, &scan) == 0);
  std::string other = "token " + p.secret;  // not the record's: searched
  BOOST_TEST(redactor().redact_text(other, &scan) == 1);
  BOOST_TEST(gone(p, other));

  std::string dirty = R"({"type":"user","text":)" + quoted(p.secret) + R"(,"note":"x"})";
  BOOST_TEST(redactor().redact_record(dirty, &scan) == 1);
  BOOST_TEST(!scan.covers("x"));
  std::string copy = p.secret;
  BOOST_TEST(redactor().redact_text(copy, &scan) == 1);
  BOOST_TEST(gone(p, copy));
}

// Rules are compiled in multi-line mode: ^ and $ are line anchors, found in texts joined by
// lines. A configured rule with \A or \z, or ^ and $ after (?-m) (the text's own start or end),
// is searched text by text.
BOOST_AUTO_TEST_CASE(anchored_configured_rules_are_searched_text_by_text) {
  helix::RedactionConfig config;
  config.rules.push_back({"whole-ticket", R"(\A(TICKET-[0-9]{6})\z)", -1});
  config.rules.push_back({"line-ticket", R"(^(LINE-[0-9]{6})$)", -1});
  config.rules.push_back({"text-ticket", R"((?-m)^(WHOLE-[0-9]{6})$)", -1});
  for (auto choice :
       {helix::RuleChoice::kPrefilter, helix::RuleChoice::kEveryRule, helix::RuleChoice::kRe2Set}) {
    Redactor r(config, {.choice = choice});
    std::string record =
        R"(["x","TICKET-123456","y","a\nLINE-654321\nb","WHOLE-000001","c\nWHOLE-000002"])";
    BOOST_TEST(r.redact_record(record) == 3);
    BOOST_TEST(record == R"(["x","[REDACTED:whole-ticket]","y","a\n[REDACTED:line-ticket]\nb",)"
                         R"("[REDACTED:text-ticket]","c\nWHOLE-000002"])");
    // A record where an \A rule could match (its required string is there) is not trusted to
    // cover its strings: each is searched alone again.
    helix::RecordScan scan;
    std::string near = R"({"a":"TICKET-000001 and more"})";
    BOOST_TEST(r.redact_record(near, &scan) == 0);
    BOOST_TEST(!scan.covers("TICKET-000001 and more"));
    std::string text = "TICKET-654321";
    BOOST_TEST(r.redact_text(text, &scan) == 1);
  }
}

BOOST_AUTO_TEST_CASE(configured_rules_allow_entries_and_disabled_rules_apply) {
  const auto& github = planted("github-pat");
  const auto& password = planted("password-assignment");
  helix::RedactionConfig config;
  config.rules.push_back({"acme-token", R"(\b(acme_[0-9a-f]{32})\b)", -1});
  config.allow.push_back({{"github-pat"}, "^" + github.secret.substr(0, 12)});  // known safe
  config.disable.push_back("password-assignment");
  config.disable.push_back("generic-api-key");
  config.disable.push_back("secret-assignment");
  Redactor r(config);
  const std::string acme = "acme_0123456789abcdef0123456789abcdef";
  std::string text = "deploy " + acme + " with " + github.secret + " and\n" + password.text;
  BOOST_TEST(r.redact_text(text) == 1, text);
  BOOST_TEST(text.find("[REDACTED:acme-token]") != std::string::npos);
  BOOST_TEST(text.find(acme) == std::string::npos);
  BOOST_TEST(text.find(github.secret) != std::string::npos);    // allowed
  BOOST_TEST(text.find(password.secret) != std::string::npos);  // rules disabled
  // The defaults still redact both.
  std::string again = github.secret + "\n" + password.text;
  BOOST_TEST(redactor().redact_text(again) == 2);
}

BOOST_AUTO_TEST_CASE(bad_configured_rules_and_wholesale_allow_entries_are_explained) {
  using helix::redaction_allow_problem;
  using helix::redaction_disable_problem;
  using helix::redaction_rule_problem;
  BOOST_TEST(redaction_rule_problem({"ok-rule", R"(\b(x_[a-z]{8})\b)", 1}).empty());
  BOOST_TEST(redaction_rule_problem({"Bad Id", "x", -1}).find("must be 1 to 64") !=
             std::string::npos);
  BOOST_TEST(redaction_rule_problem({"github-pat", "x", -1}).find("built-in") != std::string::npos);
  BOOST_TEST(redaction_rule_problem({"look", "(?<=a)b", -1}).find("not valid RE2") !=
             std::string::npos);
  BOOST_TEST(redaction_rule_problem({"grp", "(a)", 2}).find("1 capturing group") !=
             std::string::npos);
  // Allow entries name their rules and keep specific values only.
  const std::vector<helix::RedactionRuleConfig> configured = {{"acme-token", "acme_[0-9]+", -1}};
  BOOST_TEST(redaction_allow_problem({{"github-pat"}, "^ghp_0000"}, configured).empty());
  BOOST_TEST(redaction_allow_problem({{"acme-token"}, ".*"}, configured).empty());
  BOOST_TEST(redaction_allow_problem({{"password-assignment"}, ".*"}, configured).empty());
  for (const char* wholesale : {".*", ".", "^ghp_", "[A-Za-z0-9]", "", "(?i)G"})
    BOOST_TEST(redaction_allow_problem({{"github-pat"}, wholesale}, configured)
                       .find("would keep any 'github-pat' secret") != std::string::npos,
               wholesale);
  BOOST_TEST(redaction_allow_problem({{"private-key"}, "PRIVATE KEY"}, configured)
                 .find("would keep any") != std::string::npos);
  BOOST_TEST(redaction_allow_problem({{"base64-encoded-secret"}, "^[A-Za-z]"}, configured)
                 .find("would keep any") != std::string::npos);
  BOOST_TEST(redaction_allow_problem({{}, "^x$"}, configured).find("must name the rules") !=
             std::string::npos);
  BOOST_TEST(redaction_allow_problem({{"no-such-rule"}, "^x$"}, configured)
                 .find("there is no rule 'no-such-rule'") != std::string::npos);
  BOOST_TEST(!redaction_allow_problem({{"github-pat"}, "a{1001}"}, configured).empty());
  // Only generic rules can be switched off.
  BOOST_TEST(redaction_disable_problem("password-assignment").empty());
  BOOST_TEST(redaction_disable_problem("github-pat").find("high-confidence") != std::string::npos);
  BOOST_TEST(redaction_disable_problem("nope").find("no built-in rule") != std::string::npos);
}

// The keyword prefilter's choice of rules is a superset of the rules that find something:
// it gives the same bytes as running every rule (and as the RE2::Set of before), here on every
// shape in the contexts above, the look-alikes, and a rule without keywords that folds case
// (filtered by RE2's required strings). The corpora and fixtures are compared in
// test_secret_corpus.cpp.
BOOST_AUTO_TEST_CASE(the_prefilter_changes_no_byte) {
  helix::RedactionConfig config;
  config.rules.push_back({"kelvin", R"((?i)(kelvin_[0-9]{6}))", -1});
  const Redactor on(config), off(config, {.choice = helix::RuleChoice::kEveryRule}),
      set(config, {.choice = helix::RuleChoice::kRe2Set});
  std::vector<std::string> texts = helix::test::secret_lookalikes();
  for (const auto& p : planted_secrets(21)) {
    texts.push_back(p.text);
    texts.push_back(R"({"a":)" + quoted("x " + p.text + "\n") + "}");
  }
  texts.push_back(
      "unit \xE2\x84\xAA"
      "ELVIN_123456 and KELVIN_654321 and \xC5\xBF ");
  for (const auto& t : texts) {
    std::string a = t, b = t, c = t, d = t, e = t, f = t;
    BOOST_TEST(on.redact_text(a) == off.redact_text(b));
    BOOST_TEST(a == b);
    BOOST_TEST(on.redact_record(c) == off.redact_record(d));
    BOOST_TEST(c == d);
    set.redact_text(e);
    set.redact_record(f);
    BOOST_TEST(e == a);
    BOOST_TEST(f == c);
  }
  std::string kelvin =
      "unit \xE2\x84\xAA"
      "ELVIN_123456 end";  // the Kelvin sign folds to k
  BOOST_TEST(on.redact_text(kelvin) == 1);
  BOOST_TEST(kelvin == "unit [REDACTED:kelvin] end");
}
