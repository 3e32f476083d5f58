// Source files: identity and reads by offset, with zstd sources read like plain ones.
#define BOOST_TEST_MODULE source_file
#include <boost/test/unit_test.hpp>

#include "ingest/source_file.hpp"
#include "temp_dir.hpp"

#include <zstd.h>

using namespace helix;

namespace {

std::string sample_lines() {
  std::string s;
  for (int i = 0; i < 20000; ++i) s += "{\"n\":" + std::to_string(i) + ",\"pad\":\"xxxxxxxxxx\"}\n";
  return s;
}

std::string zstd(const std::string& raw) {
  std::string out(ZSTD_compressBound(raw.size()), '\0');
  out.resize(ZSTD_compress(out.data(), out.size(), raw.data(), raw.size(), 3));
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(compressed_reads_match_plain_reads_at_every_offset) {
  test::TempDir dir;
  const std::string raw = sample_lines();
  test::write_file(dir / "plain.jsonl", raw);
  test::write_file(dir / "packed.jsonl.zst", zstd(raw));
  SourceFile plain(dir / "plain.jsonl");
  SourceFile packed(dir / "packed.jsonl.zst");
  BOOST_TEST(!plain.compressed());
  BOOST_TEST(packed.compressed());
  BOOST_TEST(plain.identity().size == static_cast<int64_t>(raw.size()));
  // Forward reads in odd-sized chunks, as the sweep does.
  std::string joined;
  for (int64_t pos = 0;;) {
    std::string part = packed.read(pos, 77777);
    if (part.empty()) break;
    joined += part;
    pos += static_cast<int64_t>(part.size());
  }
  BOOST_TEST(joined == raw);
  // A backward read (an identity check) restarts decompression and still agrees.
  BOOST_TEST(packed.read(123456, 100) == plain.read(123456, 100));
  BOOST_TEST(packed.read(10, 100) == raw.substr(10, 100));
  BOOST_TEST(packed.hash(1000, 256) == plain.hash(1000, 256));
  BOOST_TEST(packed.read(static_cast<int64_t>(raw.size()) - 5, 100) == raw.substr(raw.size() - 5));
}

BOOST_AUTO_TEST_CASE(append_reads_what_the_file_holds_now_into_the_callers_buffer) {
  test::TempDir dir;
  const std::string raw = sample_lines();
  test::write_file(dir / "growing.jsonl", raw.substr(0, 1000));
  SourceFile file(dir / "growing.jsonl");
  test::write_file(dir / "growing.jsonl", raw);  // a writer appended after the open
  std::string buf = "kept:";
  BOOST_TEST(file.append(buf, 0, 1 << 20) == raw.size());  // past the size seen at the open
  BOOST_TEST(buf == "kept:" + raw);
  buf.clear();
  BOOST_TEST(file.append(buf, 500, 100) == 100u);
  BOOST_TEST(buf == raw.substr(500, 100));
  BOOST_TEST(file.append(buf, static_cast<int64_t>(raw.size()), 100) == 0u);
  BOOST_TEST(buf == raw.substr(500, 100));
}

BOOST_AUTO_TEST_CASE(a_missing_file_is_a_clear_error) {
  BOOST_CHECK_EXCEPTION(
      SourceFile("/nonexistent/x.jsonl"), std::runtime_error, [](const std::exception& e) {
        return std::string(e.what()).find("cannot open /nonexistent/x.jsonl") != std::string::npos;
      });
}
