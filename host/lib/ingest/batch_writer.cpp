#include "ingest/batch_writer.hpp"

#include <fmt/format.h>
#include <xxhash.h>
#include <set>
#include <utility>

namespace helix {
namespace {

// Warning categories that mean damaged input (as opposed to records of an unknown kind).
bool is_damage(const std::string& category) {
  static const std::set<std::string> kDamage = {"invalid_json",   "not_an_object",
                                                "invalid_record", "record_too_large",
                                                "nul_bytes",      "invalid_utf8"};
  return kDamage.count(category) > 0;
}

constexpr int64_t kDamageLines = 20;  // damaged records named one by one per sweep; then counted

}  // namespace

void report_lost_batch(SweepReport& report, const BatchLost& e) {
  report.problems.push_back(fmt::format(
      "the store could not commit its latest writes ({}): {} events and {} usage records were "
      "not stored and are not counted; the files they came from are read again by the next "
      "sweep",
      e.what(), report.uncommitted_events, report.uncommitted_usage));
  report.events_added -= std::exchange(report.uncommitted_events, 0);
  report.copies_skipped -= std::exchange(report.uncommitted_copies, 0);
  report.usage_records -= std::exchange(report.uncommitted_usage, 0);
  ++report.store_failures;
}

void note_committed(SweepReport& report) {
  report.uncommitted_events = report.uncommitted_copies = report.uncommitted_usage = 0;
}

BatchWriter::BatchWriter(Store& store, StepQueue& queue, const SourceList& sources)
    : store_(store), queue_(queue), sources_(sources), batches_seen_(store.batches_committed()) {}

// The storing thread: a failed write fails its source as a failed visit did, and the rest of
// that visit's writes are dropped (not its counts and messages).
void BatchWriter::apply(SweepStep& step, SweepReport& report) {
  accumulate(report, std::move(step.delta));
  if (step.write && locked_) {
    drop_visit(step.visit, report);
  } else if (step.write && step.visit != failed_visit_) {
    try {
      write(*step.write, report);
    } catch (const BatchLost& e) {
      lose_batch(step.visit, e, report);
    } catch (const StoreLocked& e) {
      stop_on_lock(step.visit, e, report);
    } catch (const std::exception& e) {
      ++report.store_failures;  // the store refused the write (its chunk alone is undone)
      fail_visit(step.visit, e.what(), report);
    }
  }
  try {
    store_.commit_if_due();
  } catch (const BatchLost& e) {
    lose_batch(step.visit, e, report);
  }
  if (store_.batches_committed() != batches_seen_) {
    batches_seen_ = store_.batches_committed();
    note_committed(report);
  }
  if (step.ends_visit) store_ids_.clear();  // a provisional id is used within its visit only
}

// A cursor the reading thread knows by a provisional id (a source new in this sweep) is
// written under the id the store gave it, which is remembered for the source's next writes.
void BatchWriter::write(SourceWrite& w, SweepReport& report) {
  SourceCursor& c = w.cursor;
  const int64_t provisional = c.id;
  if (provisional < 0) {
    auto it = store_ids_.find(provisional);
    c.id = it == store_ids_.end() ? 0 : it->second;
  }
  if (w.kind == SourceWrite::Kind::save_cursor)
    store_.save_source(c);
  else
    commit(c, w.batch, w.new_generation, w.input_bytes, report);
  if (provisional < 0 && c.id > 0) store_ids_[provisional] = c.id;
}

void BatchWriter::fail_visit(std::size_t visit, const std::string& why, SweepReport& report) {
  if (visit == failed_visit_) return;
  drop_visit(visit, report);
  report.problems.push_back(fmt::format("{}: {}", sources_[visit]->path, why));
}

// One message for the lock, not one per source: each would only say the same.
void BatchWriter::stop_on_lock(std::size_t visit, const StoreLocked& e, SweepReport& report) {
  locked_ = true;
  ++report.store_failures;
  report.problems.push_back(
      fmt::format("{}: the sweep stores nothing more; the sources it did not store are read "
                  "again by the next sweep",
                  e.what()));
  drop_visit(visit, report);
}

// The visit's writes are dropped, and its source keeps its stored cursor.
void BatchWriter::drop_visit(std::size_t visit, SweepReport& report) {
  if (visit == failed_visit_) return;
  failed_visit_ = visit;
  queue_.fail(visit);
  ++report.sources_failed;
}

// Sources of earlier visits in the lost batch kept their stored cursors. The visit being
// stored must stop: the parsing thread moved its cursor past chunks that are gone, and its
// next chunk would save that cursor in a new batch.
void BatchWriter::lose_batch(std::size_t visit, const BatchLost& e, SweepReport& report) {
  store_ids_.clear();  // rows of sources new in the batch went with it
  report_lost_batch(report, e);
  fail_visit(visit, "stopped: its latest chunks were among the lost writes", report);
}

void BatchWriter::commit(SourceCursor& cursor, const RecordBatch& batch, bool new_generation,
                         int64_t input_bytes, SweepReport& report) {
  CommitStats stats = store_.commit_chunk(cursor, batch, new_generation, input_bytes);
  report.events_added += stats.events_added;
  report.events_unchanged += stats.events_unchanged;
  report.events_replaced += stats.events_replaced;
  report.events_removed += stats.events_removed;
  report.copies_skipped += stats.events_skipped_as_copies;
  report.usage_records += stats.usage_records;
  report.uncommitted_events += stats.events_added;
  report.uncommitted_copies += stats.events_skipped_as_copies;
  report.uncommitted_usage += stats.usage_records;
  for (const auto& w : batch.warnings) {
    ++report.warnings_by_category[w.category];
    if (!is_damage(w.category)) continue;
    if (++report.bad_records <= kDamageLines)
      report.problems.push_back(fmt::format("{}: offset {}: {}: {}", cursor.path, w.source_offset,
                                            w.category, w.message));
    else if (report.bad_records == kDamageLines + 1)
      report.problems.push_back(
          "more damaged records: see the warnings counts; each is stored "
          "with its file and offset in the warnings table");
  }
  const uint64_t flavor = XXH3_64bits(cursor.flavor.data(), cursor.flavor.size());
  const std::string* last = nullptr;  // a session's events come in runs: hash each run once
  auto touch = [&](const std::string& native_id) {
    if (last && *last == native_id) return;
    last = &native_id;
    report.sessions_touched.insert(
        XXH3_64bits_withSeed(native_id.data(), native_id.size(), flavor));
  };
  for (const auto& e : batch.events) touch(e.session_id);
  for (const auto& s : batch.sessions) touch(s.native_id);
}

}  // namespace helix
