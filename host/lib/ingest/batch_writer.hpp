// The storing side of a sweep, on the calling thread, the store's single writer: applies the
// reading thread's steps in order, one savepoint per chunk inside the store's batch, and turns
// a failed write into a failed source and a lost batch into sources read again next sweep.
#pragma once

#include "ingest/step_queue.hpp"
#include "ingest/sweep_report.hpp"
#include "store/store.hpp"

#include <cstdint>
#include <map>

namespace helix {

class BatchWriter {
 public:
  BatchWriter(Store& store, StepQueue& queue, const SourceList& sources);

  // The step's report changes, then its write; a write of a source whose earlier write failed
  // is dropped (not its counts and messages), and so is every write once the store stayed
  // locked past its busy timeout.
  void apply(SweepStep& step, SweepReport& report);

 private:
  void write(SourceWrite& w, SweepReport& report);
  void commit(SourceCursor& cursor, const RecordBatch& batch, bool new_generation,
              int64_t input_bytes, SweepReport& report);
  void fail_visit(std::size_t visit, const std::string& why, SweepReport& report);
  void lose_batch(std::size_t visit, const BatchLost& e, SweepReport& report);
  void stop_on_lock(std::size_t visit, const StoreLocked& e, SweepReport& report);
  void drop_visit(std::size_t visit, SweepReport& report);

  Store& store_;
  StepQueue& queue_;
  const SourceList& sources_;
  std::map<int64_t, int64_t> store_ids_;  // store ids given to this visit's provisional ones
  std::size_t failed_visit_ = SIZE_MAX;   // its remaining writes are dropped
  int64_t batches_seen_ = 0;              // store_.batches_committed() at the last look
  // The store stayed locked past its busy timeout: every later write would wait as long, so
  // none is tried; their sources are read again by the next sweep.
  bool locked_ = false;
};

// Says in the report that the store lost a batch, and what happens to its sources; takes what
// the batch held out of the counts.
void report_lost_batch(SweepReport& report, const BatchLost& e);
// The open batch was committed: its counts stand.
void note_committed(SweepReport& report);

}  // namespace helix
