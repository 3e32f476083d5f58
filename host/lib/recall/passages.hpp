// Recall without a model: the passages of past sessions most relevant to a question, ranked by
// full-text relevance (FTS5 bm25 over the question's words), how many of those words the
// passage holds, recency, and whether it comes from the asking agent's own repository.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "store/store.hpp"

namespace helix {

struct RecallQuery {
  std::string question;
  std::vector<std::string> repos;  // the repositories to search; empty = every one
  std::string home_repo;           // the asking agent's repository: its passages rank higher
  std::string flavor;              // only this agent's sessions ("" = all)
  int64_t now_ms = 0;              // for recency
  std::size_t max_passages = 40;   // how many to return at most, best first
};

struct Passage {
  std::string session_uid, flavor, repo, title, kind, tool, text;
  int64_t ts_ms = 0;
  int64_t seq = -1;  // -1: from a digest (the session's raw events were evicted)
  double score = 0;  // higher is better; comparable within one answer only
};

struct RecallAnswer {
  std::vector<std::string> terms;  // the words searched for
  std::vector<Passage> passages;   // best first
};

// The question's search words: lowercased, stop words and single letters dropped, at most 16.
std::vector<std::string> question_terms(std::string_view question);

RecallAnswer recall_passages(Store& store, const RecallQuery& query);

}  // namespace helix
