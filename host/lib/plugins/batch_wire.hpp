// The bytes a parse call's RecordBatch travels as between an adapter's worker process and the
// host: length-prefixed fields in a fixed order, read back with every length checked.
#pragma once

#include "model/record_batch.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace helix {

class WireWriter {
 public:
  void u64(uint64_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
  void f64(double v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void str(std::string_view s) {
    u64(s.size());
    out_.append(s);
  }
  std::string& bytes() { return out_; }

 private:
  std::string out_;
};

// Throws std::runtime_error when the bytes end early.
class WireReader {
 public:
  explicit WireReader(std::string_view in) : in_(in) {}
  uint64_t u64() {
    uint64_t v;
    take(&v, sizeof v);
    return v;
  }
  int64_t i64() { return static_cast<int64_t>(u64()); }
  double f64() {
    double v;
    take(&v, sizeof v);
    return v;
  }
  // A number of items that follow: each takes at least a byte, so more than remain is damage.
  std::size_t count() {
    const uint64_t n = u64();
    if (n > in_.size()) throw std::runtime_error("a worker's answer is damaged");
    return static_cast<std::size_t>(n);
  }
  std::string str() {
    const uint64_t n = u64();
    if (n > in_.size()) throw std::runtime_error("a worker's answer ends early");
    std::string s(in_.substr(0, n));
    in_.remove_prefix(n);
    return s;
  }

 private:
  void take(void* to, std::size_t n);
  std::string_view in_;
};

void write_batch(WireWriter& out, const RecordBatch& batch);
RecordBatch read_batch(WireReader& in);

}  // namespace helix
