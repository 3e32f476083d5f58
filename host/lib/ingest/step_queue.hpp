// The hand-over between a sweep's two threads: the reading thread queues each write it wants
// made (with the report changes made before it), the storing thread applies them in order.
#pragma once

#include "ingest/discovery.hpp"
#include "ingest/sweep_report.hpp"
#include "model/record_batch.hpp"
#include "model/source_cursor.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <vector>

namespace helix {

// The sources one sweep reads, in order; a step names its source by its index here (its visit).
using SourceList = std::vector<const DiscoveredSource*>;

// A write the reading thread asks the store for: a cursor on its own, or a parsed chunk and
// the cursor advanced past it (they commit together).
struct SourceWrite {
  enum class Kind { save_cursor, commit_chunk };
  Kind kind = Kind::save_cursor;
  SourceCursor cursor;          // a new source's id is provisional (< 0) until the store has it
  RecordBatch batch;            // commit_chunk
  bool new_generation = false;  // commit_chunk: first of a new generation (old rows go)
  int64_t input_bytes = 0;      // commit_chunk: the source bytes the chunk read
};

// One step in the reading thread's order.
struct SweepStep {
  std::size_t visit = 0;
  SweepReport delta;                 // the reading thread's report changes made before the write
  std::optional<SourceWrite> write;  // absent for a step that only reports
  int64_t bytes = 0;                 // source bytes the step carries: the queue's memory bound
  bool ends_visit = false;
};

// The queue between the parsing thread and the storing thread. The parser waits before each
// chunk while the queue holds a quarter chunk or more, so at most about two chunks' records
// (one being stored, one queued or being parsed) are held at once, while small sources still
// queue many at a time.
class StepQueue {
 public:
  struct Aborted {};  // the storing side gave up: the parsing thread stops

  explicit StepQueue(int64_t budget) : budget_(std::max<int64_t>(1, budget)) {}

  void wait_for_room() {
    std::unique_lock lock(mutex_);
    room_.wait(lock, [&] { return aborted_ || bytes_ < budget_; });
    if (aborted_) throw Aborted{};
  }
  void push(SweepStep step) {
    std::unique_lock lock(mutex_);
    room_.wait(lock, [&] { return aborted_ || queue_.size() < kMaxSteps; });
    if (aborted_) throw Aborted{};
    bytes_ += step.bytes;
    queue_.push_back(std::move(step));
    ready_.notify_one();
  }
  std::optional<SweepStep> pop() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return closed_ || !queue_.empty(); });
    if (queue_.empty()) return std::nullopt;
    SweepStep step = std::move(queue_.front());
    queue_.pop_front();
    bytes_ -= step.bytes;
    room_.notify_one();
    return step;
  }
  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    ready_.notify_one();
  }
  void abort() {
    std::lock_guard lock(mutex_);
    aborted_ = true;
    room_.notify_one();
  }
  // A write of this visit failed: the parser may stop reading its source.
  void fail(std::size_t visit) { failed_.store(visit); }
  bool failed(std::size_t visit) const { return failed_.load() == visit; }

 private:
  static constexpr std::size_t kMaxSteps = 1024;
  const int64_t budget_;
  std::mutex mutex_;
  std::condition_variable ready_, room_;
  std::deque<SweepStep> queue_;
  int64_t bytes_ = 0;
  bool closed_ = false, aborted_ = false;
  std::atomic<std::size_t> failed_{SIZE_MAX};
};

}  // namespace helix
