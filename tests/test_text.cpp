// Text hygiene: invalid UTF-8 repaired, summaries on one bounded line.
#define BOOST_TEST_MODULE text
#include <boost/test/unit_test.hpp>

#include "text.hpp"

using namespace helix;

BOOST_AUTO_TEST_CASE(invalid_utf8_and_nul_become_replacement_characters) {
  BOOST_TEST(valid_utf8("plain") == "plain");
  BOOST_TEST(valid_utf8("caf\xC3\xA9") == "caf\xC3\xA9");
  BOOST_TEST(valid_utf8("a\xFF" "b") == "a\xEF\xBF\xBD" "b");
  BOOST_TEST(valid_utf8(std::string("a\0b", 3)) == "a\xEF\xBF\xBD" "b");
  BOOST_TEST(valid_utf8("\xE2\x82") == "\xEF\xBF\xBD\xEF\xBF\xBD");      // truncated sequence
  BOOST_TEST(valid_utf8("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
}

BOOST_AUTO_TEST_CASE(one_line_folds_whitespace_and_cuts_by_characters) {
  BOOST_TEST(one_line("ran\n  pytest\t-q\n", 50) == "ran pytest -q");
  BOOST_TEST(one_line("\xC3\xA9\xC3\xA9\xC3\xA9", 2) == "\xC3\xA9\xC3\xA9\xE2\x80\xA6");
  BOOST_TEST(one_line("short", 5) == "short");
}
