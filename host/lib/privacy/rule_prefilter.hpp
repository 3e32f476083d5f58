// Which redaction rules can match a text, in one pass: a Vectorscan literal scan for the rules'
// keywords (a rule applies only to a text holding one), the strings each rule's every match
// holds (secret_rules.tsv's required column) and, for rules without keywords (configured ones),
// the strings RE2's FilteredRE2 says their regex needs. A rule it leaves out cannot find
// anything; the redactor runs only the ones it names.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class FilteredRE2;
}
struct hs_database;

namespace helix {

class RulePrefilter {
 public:
  struct Rule {
    std::vector<std::string> keywords;  // lower case; the rule applies to a text holding one
    std::vector<std::string> required;  // lower case; every match holds one (none: no filter)
    std::string pattern;  // RE2, used when there are no keywords (its required strings)
  };

  // Throws std::runtime_error when a pattern does not compile or Vectorscan refuses the
  // literals.
  explicit RulePrefilter(const std::vector<Rule>& rules);
  ~RulePrefilter();
  RulePrefilter(const RulePrefilter&) = delete;
  RulePrefilter& operator=(const RulePrefilter&) = delete;

  // The indexes of the rules that can match `text`, ascending, in `out` (cleared first): those
  // whose keywords and required strings it holds (ASCII case-insensitively), and those without
  // keywords whose FilteredRE2 strings are there. Thread-safe (each thread has its scratch).
  void candidates(std::string_view text, std::vector<int>& out) const;

 private:
  using LiteralIds = std::map<std::string, unsigned>;  // literal: its Vectorscan id

  // Building: the id of `text` as a literal, added (with no rules yet) when new.
  unsigned literal_id(LiteralIds& ids, const std::string& text);
  // Each rule's keywords and required strings as literals; returns the rules without keywords.
  std::vector<int> add_rule_literals(const std::vector<Rule>& rules, LiteralIds& ids);
  // The rules without keywords in a FilteredRE2, its atoms as literals too.
  void filter_keywordless(const std::vector<Rule>& rules, const std::vector<int>& keywordless,
                          LiteralIds& ids);
  void compile_literals(const LiteralIds& ids);

  // Matching: the ids of the literals `text` holds, in `hits` (cleared first).
  void scan_literals(std::string_view text, std::vector<unsigned>& hits) const;
  // The rules with keywords whose keywords and required strings are all among `hits`.
  void add_keyword_rules(const std::vector<unsigned>& hits, std::vector<int>& out) const;
  // The rules without keywords whose FilteredRE2 atoms are among `hits`.
  void add_filtered_rules(std::string_view text, const std::vector<unsigned>& hits,
                          std::vector<int>& out) const;

  std::size_t rule_count_;
  hs_database* literals_ = nullptr;               // owned; null when there are no literals
  std::vector<std::vector<int>> literal_rules_;   // literal id: the rules it is a keyword of
  std::vector<std::vector<int>> literal_needed_;  // literal id: rules it is a required string of
  std::vector<uint8_t> needs_;                    // per rule: kKeyword | kRequired, as it has
  std::vector<int> literal_atom_;                 // literal id: its FilteredRE2 atom, or -1
  std::unique_ptr<re2::FilteredRE2> filtered_;    // the rules without keywords, if any
  std::vector<int> filtered_rule_;                // FilteredRE2 regexp id: the rule's index
  std::vector<int> always_;                       // rules without keywords or required strings
};

}  // namespace helix
