// Text hygiene: invalid UTF-8 repaired, summaries on one bounded line; JSON text as helix
// writes it.
#define BOOST_TEST_MODULE text
#include <boost/test/unit_test.hpp>

#include "base/json_text.hpp"
#include "base/text.hpp"

#include <boost/json.hpp>
#include <cmath>
#include <optional>
#include <random>
#include <vector>

using namespace helix;

BOOST_AUTO_TEST_CASE(invalid_utf8_and_nul_become_replacement_characters) {
  BOOST_TEST(valid_utf8("plain") == "plain");
  BOOST_TEST(valid_utf8("caf\xC3\xA9") == "caf\xC3\xA9");
  BOOST_TEST(valid_utf8("a\xFF"
                        "b") ==
             "a\xEF\xBF\xBD"
             "b");
  BOOST_TEST(valid_utf8(std::string("a\0b", 3)) ==
             "a\xEF\xBF\xBD"
             "b");
  BOOST_TEST(valid_utf8("\xE2\x82") == "\xEF\xBF\xBD\xEF\xBF\xBD");  // truncated sequence
  BOOST_TEST(valid_utf8("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
}

// The word-at-a-time scan agrees with the byte-by-byte definition wherever the damage lies.
BOOST_AUTO_TEST_CASE(long_texts_are_checked_and_repaired_wherever_the_damage_is) {
  const std::string clean = "0123456789abcdef caf\xC3\xA9 \xF0\x9F\x98\x80 tail of the text";
  BOOST_TEST(is_valid_utf8(clean));
  BOOST_TEST(valid_utf8(clean) == clean);
  for (std::size_t at = 0; at <= clean.size(); ++at) {
    if (at < clean.size() && (static_cast<unsigned char>(clean[at]) & 0xC0) == 0x80) continue;
    const std::string repaired = clean.substr(0, at) + "\xEF\xBF\xBD" + clean.substr(at);
    for (const std::string& bad :
         {std::string("\xFF"), std::string(1, '\0'), std::string("\xC3")}) {
      const std::string damaged = clean.substr(0, at) + bad + clean.substr(at);
      BOOST_TEST(!is_valid_utf8(damaged), at);
      BOOST_TEST(valid_utf8(damaged) == repaired, at);
    }
  }
}

BOOST_AUTO_TEST_CASE(one_line_folds_whitespace_and_cuts_by_characters) {
  BOOST_TEST(one_line("ran\n  pytest\t-q\n", 50) == "ran pytest -q");
  BOOST_TEST(one_line("\xC3\xA9\xC3\xA9\xC3\xA9", 2) == "\xC3\xA9\xC3\xA9\xE2\x80\xA6");
  BOOST_TEST(one_line("short", 5) == "short");
}

// Boost.JSON's answer for the literal "<contents>": the decoded string, or nothing on error.
std::optional<std::string> boost_decoded(const std::string& contents) {
  boost::system::error_code ec;
  auto v = boost::json::parse("\"" + contents + "\"", ec);
  if (ec || !v.is_string()) return std::nullopt;
  return std::string(v.get_string());
}

std::optional<std::string> decoded(const std::string& contents) {
  std::string out;
  if (!decode_json_string(contents, out)) return std::nullopt;
  return out;
}

BOOST_AUTO_TEST_CASE(json_strings_decode_exactly_as_boost_json_decodes_them) {
  for (const std::string contents :
       {"", "plain", R"(a\nb\tc\\d\/e\"f)", R"(\u0067hp_)", R"(\u00e9\u20ac)", R"(\ud83d\ude00)",
        "caf\xC3\xA9", R"(\u0000)"}) {
    BOOST_TEST(decoded(contents).has_value(), contents);
    BOOST_TEST((decoded(contents) == boost_decoded(contents)), contents);
  }
  // What the parser refuses: bad escapes, lone or misordered surrogates, short \u escapes,
  // control characters, invalid UTF-8.
  for (const std::string contents :
       {R"(a\q)", R"(\ud83d)", R"(\ud83dx)", R"(\ude00)", R"(\ud83d\u0041)", R"(\u12)", R"(\u12G4)",
        "tab\tin", "\xFF", "\xED\xA0\x80", "trailing\\"}) {
    BOOST_TEST(!decoded(contents).has_value(), contents);
    BOOST_TEST(!boost_decoded(contents).has_value(), contents);
  }
  // Random mixes of the pieces a decoder can get wrong agree with Boost.JSON too.
  const std::vector<std::string> pieces = {
      "a",       "Z",       " ",     "\\n", "\\\\",     "\\\"", "\\u0041",
      "\\ud800", "\\udc00", "\\u00", "\\x", "\xC3\xA9", "\xC3", "\xF0\x9F\x98\x80",
      "\x7F",    "\x01",    "/"};
  std::mt19937 random(8);
  for (int round = 0; round < 20000; ++round) {
    std::string contents;
    for (int n = static_cast<int>(random() % 6); n > 0; --n)
      contents += pieces[random() % pieces.size()];
    BOOST_TEST((decoded(contents) == boost_decoded(contents)), contents);
  }
}

BOOST_AUTO_TEST_CASE(json_numbers_are_plain_decimals_rounded_to_a_millionth) {
  namespace json = boost::json;
  BOOST_TEST(
      to_json(json::value{{"cost", 0.65876725}, {"n", 3}, {"z", 0.0}, {"big", 531.817078475}}) ==
      R"({"cost":0.658767,"n":3,"z":0.0,"big":531.817078})");
  BOOST_TEST(to_json(json::value{{"tiny", 4e-7}, {"neg", -4e-7}, {"e", 1e20}}) ==
             R"({"tiny":0.0,"neg":0.0,"e":100000000000000000000.0})");
  BOOST_TEST(to_json(json::value{{"nan", std::nan("")}, {"inf", HUGE_VAL}}) ==
             R"({"nan":null,"inf":null})");
  BOOST_TEST(to_json(json::value{{"s", "a\"\n"}}) == R"({"s":"a\"\n"})");
  BOOST_TEST(round_micro(0.3387584999) == 0.338758);
  // Files people edit get their numbers back exactly, indented.
  BOOST_TEST(to_pretty_json(json::parse(R"({"a":[1,2.5,1e-9],"b":{},"c":2.0})")) ==
             "{\n  \"a\": [\n    1,\n    2.5,\n    1e-09\n  ],\n  \"b\": {},\n  \"c\": 2.0\n}\n");
}

// A file name is bytes: JSON output stays parseable whatever they are, and a NUL (valid JSON
// text, \u0000) is kept where invalid sequences become U+FFFD, in values and in keys.
BOOST_AUTO_TEST_CASE(json_strings_are_valid_utf8_and_keep_nul) {
  namespace json = boost::json;
  const std::string name("a\xff\0b", 4);
  json::object o;
  o[name] = name;
  const std::string text = to_json(o);
  BOOST_TEST(text == "{\"a\xEF\xBF\xBD\\u0000b\":\"a\xEF\xBF\xBD\\u0000b\"}");
  BOOST_TEST(json::parse(text).at(std::string_view("a\xEF\xBF\xBD\0b", 6)).as_string() ==
             std::string_view("a\xEF\xBF\xBD\0b", 6));
}
