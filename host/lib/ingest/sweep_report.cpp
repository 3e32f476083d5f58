#include "ingest/sweep_report.hpp"

#include <utility>

namespace helix {

void accumulate(SweepReport& into, SweepReport&& from) {
  for (auto [to, add] : {std::pair{&into.sources_seen, from.sources_seen},
                         {&into.sources_new, from.sources_new},
                         {&into.sources_changed, from.sources_changed},
                         {&into.sources_unchanged, from.sources_unchanged},
                         {&into.sources_rewritten, from.sources_rewritten},
                         {&into.sources_unclaimed, from.sources_unclaimed},
                         {&into.sources_missing, from.sources_missing},
                         {&into.sources_failed, from.sources_failed},
                         {&into.events_added, from.events_added},
                         {&into.copies_skipped, from.copies_skipped},
                         {&into.usage_records, from.usage_records},
                         {&into.bytes_read, from.bytes_read},
                         {&into.bad_records, from.bad_records},
                         {&into.sources_quarantined, from.sources_quarantined},
                         {&into.sources_still_quarantined, from.sources_still_quarantined},
                         {&into.sources_orphaned, from.sources_orphaned},
                         {&into.sources_reparsed, from.sources_reparsed}})
    *to += add;
  into.sessions_touched.merge(from.sessions_touched);
  for (const auto& [category, n] : from.warnings_by_category)
    into.warnings_by_category[category] += n;
  into.problems.insert(into.problems.end(), std::make_move_iterator(from.problems.begin()),
                       std::make_move_iterator(from.problems.end()));
}

}  // namespace helix
