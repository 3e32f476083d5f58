#include "privacy/rule_prefilter.hpp"

#include <fmt/format.h>
#include <hs/hs.h>
#include <re2/filtered_re2.h>
#include <re2/re2.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <stdexcept>

namespace helix {
namespace {

// FilteredRE2 drops required strings shorter than this (the regex then runs on every text).
constexpr int kMinAtomLength = 3;

// What a rule needs seen in a text (RulePrefilter::needs_).
constexpr uint8_t kKeyword = 1, kRequired = 2;

// The only characters outside ASCII that RE2's case folding makes equal to ASCII letters: the
// Kelvin sign (k) and the long s (s). A case-insensitive regex may match them where a required
// string, lower-cased, is not in the text: such a text runs every rule without keywords.
bool has_ascii_fold_partner(std::string_view text) {
  return text.find("\xE2\x84\xAA") != std::string_view::npos ||
         text.find("\xC5\xBF") != std::string_view::npos;
}

bool is_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

int on_literal(unsigned id, unsigned long long, unsigned long long, unsigned, void* hits) {
  static_cast<std::vector<unsigned>*>(hits)->push_back(id);
  return 0;  // go on: every literal of the text is wanted
}

// Scratch space of the calling thread, grown to fit each database it scans.
struct ThreadScratch {
  hs_scratch_t* space = nullptr;
  ~ThreadScratch() { hs_free_scratch(space); }
};

}  // namespace

unsigned RulePrefilter::literal_id(LiteralIds& ids, const std::string& text) {
  auto [it, added] = ids.emplace(text, static_cast<unsigned>(ids.size()));
  if (added) {
    literal_rules_.emplace_back();
    literal_needed_.emplace_back();
    literal_atom_.push_back(-1);
  }
  return it->second;
}

std::vector<int> RulePrefilter::add_rule_literals(const std::vector<Rule>& rules, LiteralIds& ids) {
  std::vector<int> keywordless;
  needs_.assign(rules.size(), 0);
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const int rule = static_cast<int>(i);
    for (const auto& k : rules[i].keywords)
      if (!k.empty()) {
        literal_rules_[literal_id(ids, k)].push_back(rule);
        needs_[i] |= kKeyword;
      }
    for (const auto& r : rules[i].required)
      if (!r.empty()) {
        literal_needed_[literal_id(ids, r)].push_back(rule);
        needs_[i] |= kRequired;
      }
    if (!(needs_[i] & kKeyword)) keywordless.push_back(rule);
  }
  return keywordless;
}

void RulePrefilter::filter_keywordless(const std::vector<Rule>& rules,
                                       const std::vector<int>& keywordless, LiteralIds& ids) {
  filtered_ = std::make_unique<re2::FilteredRE2>(kMinAtomLength);
  RE2::Options options;
  options.set_log_errors(false);
  for (int i : keywordless) {
    const std::string& pattern = rules[static_cast<std::size_t>(i)].pattern;
    int id = 0;
    if (filtered_->Add(pattern, options, &id) != RE2::NoError)
      throw std::runtime_error(
          fmt::format("redaction rule pattern '{}' does not compile", pattern));
    filtered_rule_.push_back(i);
  }
  std::vector<std::string> atoms;
  filtered_->Compile(&atoms);
  if (std::all_of(atoms.begin(), atoms.end(), is_ascii)) {
    for (std::size_t a = 0; a < atoms.size(); ++a)
      literal_atom_[literal_id(ids, atoms[a])] = static_cast<int>(a);
  } else {  // a required string Vectorscan cannot fold: these rules run on every text
    filtered_.reset();
    always_ = keywordless;
  }
}

void RulePrefilter::compile_literals(const LiteralIds& ids) {
  std::vector<const char*> texts(ids.size());
  std::vector<std::size_t> lengths(ids.size());
  std::vector<unsigned> flags(ids.size(), HS_FLAG_CASELESS | HS_FLAG_SINGLEMATCH),
      order(ids.size());
  for (const auto& [text, id] : ids) {
    texts[id] = text.data();
    lengths[id] = text.size();
  }
  std::iota(order.begin(), order.end(), 0u);
  hs_compile_error_t* error = nullptr;
  if (hs_compile_lit_multi(texts.data(), flags.data(), order.data(), lengths.data(),
                           static_cast<unsigned>(ids.size()), HS_MODE_BLOCK, nullptr, &literals_,
                           &error) != HS_SUCCESS) {
    const std::string why = error && error->message ? error->message : "unknown error";
    hs_free_compile_error(error);
    throw std::runtime_error("the redaction keywords could not be compiled by Vectorscan: " + why);
  }
}

RulePrefilter::RulePrefilter(const std::vector<Rule>& rules) : rule_count_(rules.size()) {
  LiteralIds ids;
  const std::vector<int> keywordless = add_rule_literals(rules, ids);
  if (!keywordless.empty()) filter_keywordless(rules, keywordless, ids);
  if (!ids.empty()) compile_literals(ids);
}

RulePrefilter::~RulePrefilter() { hs_free_database(literals_); }

void RulePrefilter::scan_literals(std::string_view text, std::vector<unsigned>& hits) const {
  thread_local ThreadScratch scratch;
  hits.clear();
  if (!literals_ || text.empty()) return;
  const auto length = static_cast<unsigned>(text.size());
  hs_error_t status = hs_scan(literals_, text.data(), length, 0, scratch.space, on_literal, &hits);
  if (status == HS_INVALID) {  // no scratch yet, or one too small for this database
    if (hs_alloc_scratch(literals_, &scratch.space) != HS_SUCCESS)
      throw std::runtime_error("Vectorscan could not allocate its scratch space");
    hits.clear();
    status = hs_scan(literals_, text.data(), length, 0, scratch.space, on_literal, &hits);
  }
  if (status != HS_SUCCESS)
    throw std::runtime_error(fmt::format("Vectorscan scan failed (error {})", status));
}

void RulePrefilter::add_keyword_rules(const std::vector<unsigned>& hits,
                                      std::vector<int>& out) const {
  thread_local std::vector<uint8_t> seen;  // per rule: what of its needs the text holds
  seen.assign(rule_count_, 0);
  for (unsigned id : hits) {
    for (int r : literal_rules_[id]) seen[static_cast<std::size_t>(r)] |= kKeyword;
    for (int r : literal_needed_[id]) seen[static_cast<std::size_t>(r)] |= kRequired;
  }
  for (std::size_t i = 0; i < rule_count_; ++i)
    if ((needs_[i] & kKeyword) && (seen[i] & needs_[i]) == needs_[i])
      out.push_back(static_cast<int>(i));
}

void RulePrefilter::add_filtered_rules(std::string_view text, const std::vector<unsigned>& hits,
                                       std::vector<int>& out) const {
  if (has_ascii_fold_partner(text)) {
    out.insert(out.end(), filtered_rule_.begin(), filtered_rule_.end());
    return;
  }
  std::vector<int> atoms, potential;
  for (unsigned id : hits)
    if (literal_atom_[id] >= 0) atoms.push_back(literal_atom_[id]);
  filtered_->AllPotentials(atoms, &potential);
  for (int p : potential) out.push_back(filtered_rule_[static_cast<std::size_t>(p)]);
}

void RulePrefilter::candidates(std::string_view text, std::vector<int>& out) const {
  out.clear();
  if (text.size() > UINT32_MAX) {  // past Vectorscan's 4 GiB: every rule (never a transcript)
    for (std::size_t i = 0; i < rule_count_; ++i) out.push_back(static_cast<int>(i));
    return;
  }
  thread_local std::vector<unsigned> hits;
  scan_literals(text, hits);
  add_keyword_rules(hits, out);
  if (filtered_) add_filtered_rules(text, hits, out);
  out.insert(out.end(), always_.begin(), always_.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

}  // namespace helix
