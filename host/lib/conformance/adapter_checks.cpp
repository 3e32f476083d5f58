#include "conformance/adapter_checks.hpp"

#include "conformance/isolated_call.hpp"
#include "conformance/parse_output.hpp"
#include "plugins/adapter_instance.hpp"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <set>
#include <sstream>

namespace helix {
namespace {

namespace fs = std::filesystem;

// A sample as the host hands it to the adapter: LINES sources only up to their last newline.
struct Sample {
  fs::path path;
  uint32_t layout = HELIX_LAYOUT_LINES;
  std::string data;
  std::vector<uint64_t> line_starts;  // LINES: where each line starts (cut points)
};

std::string read_whole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The layout of the plugin's first pattern whose last segment matches the file name.
std::optional<uint32_t> layout_of(const PluginInfo& plugin, const fs::path& path) {
  const std::string name = path.filename().string();
  for (auto p = plugin.adapter->patterns; p && p->glob; ++p) {
    std::string_view glob = p->glob;
    glob = glob.substr(glob.rfind('/') == std::string_view::npos ? 0 : glob.rfind('/') + 1);
    if (::fnmatch(std::string(glob).c_str(), name.c_str(), 0) == 0) return p->layout;
  }
  return std::nullopt;
}

Sample load_sample(const PluginInfo& plugin, const fs::path& path, CheckReport& report) {
  Sample s{path, HELIX_LAYOUT_LINES, read_whole(path), {}};
  if (auto layout = layout_of(plugin, path))
    s.layout = *layout;
  else
    report.note("the file name matches none of the plugin's patterns; read as LINES");
  if (s.layout == HELIX_LAYOUT_LINES) {
    const auto last = s.data.rfind('\n');
    const std::size_t complete = last == std::string::npos ? 0 : last + 1;
    if (complete < s.data.size())
      report.note(
          fmt::format("{} bytes after the last newline are left out, as the host leaves "
                      "a line still being written",
                      s.data.size() - complete));
    s.data.resize(complete);
    for (std::size_t pos = 0; pos < s.data.size(); pos = s.data.find('\n', pos) + 1)
      s.line_starts.push_back(pos);
  }
  return s;
}

// One parse call's output; a HELIX_ERROR is recorded, not thrown.
void parse_into(const AdapterInstance& adapter, const Sample& s, uint64_t begin,
                std::string_view data, std::string& state, ParseOutput& out) {
  RecordBatch batch;
  try {
    adapter.parse(s.path.string(), s.layout, begin, data, state, batch);
  } catch (const std::exception& e) {
    out.failed = true;
    out.error = e.what();
    return;
  }
  if (batch.saved_state) state = *batch.saved_state;
  out.add(batch);
}

// The sample parsed in calls that start at `cuts` (line starts, ascending, the first 0), each
// with the state the previous one saved, as the host does across sweeps and chunks.
ParseOutput parse_in_calls(const AdapterInstance& adapter, const Sample& s,
                           const std::vector<uint64_t>& cuts) {
  ParseOutput out;
  std::string state;
  for (std::size_t i = 0; i < cuts.size() && !out.failed; ++i) {
    const uint64_t end = i + 1 < cuts.size() ? cuts[i + 1] : s.data.size();
    parse_into(adapter, s, cuts[i], std::string_view(s.data).substr(cuts[i], end - cuts[i]), state,
               out);
  }
  out.seal();
  return out;
}

ParseOutput parse_whole(const AdapterInstance& adapter, const Sample& s) {
  return parse_in_calls(adapter, s, {0});
}

// `n` distinct random line starts after 0, ascending, with 0 first.
std::vector<uint64_t> random_cuts(const Sample& s, std::mt19937_64& rng, std::size_t n) {
  std::set<uint64_t> cuts = {0};
  if (s.line_starts.size() > 1) {
    std::uniform_int_distribution<std::size_t> pick(1, s.line_starts.size() - 1);
    for (std::size_t i = 0; i < n; ++i) cuts.insert(s.line_starts[pick(rng)]);
  }
  return {cuts.begin(), cuts.end()};
}

// Every event starts at a record of the sample: at a line start (LINES) or where its payload
// is in the sample, and inside the sample. "" when they all do, else the first that does not.
std::string misplaced_record(const Sample& s, const ParseOutput& out) {
  const std::string_view data = s.data;
  for (const auto& [offset, payload] : out.payloads) {
    if (offset >= data.size())
      return fmt::format("an event at offset {}, past the sample's {} bytes", offset, data.size());
    const bool at_payload = !payload.empty() && data.substr(offset).starts_with(payload);
    const bool at_line =
        s.layout == HELIX_LAYOUT_LINES && (offset == 0 || data[offset - 1] == '\n');
    // Without a payload, a document's event must at least point at the start of a value.
    const bool at_value = payload.empty() && s.layout == HELIX_LAYOUT_DOCUMENT &&
                          std::string_view("{[\"").find(data[offset]) != std::string_view::npos;
    if (!at_payload && !at_line && !at_value)
      return fmt::format(
          "an event at offset {} whose payload is not the sample's bytes there (sample: {:?}, "
          "payload: {:?})",
          offset, std::string(data.substr(offset, 40)), payload.substr(0, 40));
  }
  for (const auto& [offset, line] : out.usage)
    if (offset >= data.size())
      return fmt::format("a usage record at offset {}, past the sample's {} bytes", offset,
                         data.size());
  return {};
}

// Damaged versions of the sample, each with a name for the report.
std::vector<std::pair<std::string, std::string>> damaged_inputs(const Sample& s,
                                                                std::mt19937_64& rng) {
  std::vector<std::pair<std::string, std::string>> out;
  out.emplace_back("empty input", "");
  out.emplace_back("one blank line", "\n");
  std::uniform_int_distribution<std::size_t> at(0, s.data.empty() ? 0 : s.data.size() - 1);
  for (int i = 0; i < 8 && !s.data.empty(); ++i) {
    std::string cut = s.data.substr(0, at(rng));
    if (s.layout == HELIX_LAYOUT_LINES) cut += "\n";  // the host hands whole lines only
    out.emplace_back(fmt::format("cut at byte {}", cut.size()), cut);
  }
  for (int i = 0; i < 8 && !s.data.empty(); ++i) {
    std::string flipped = s.data;
    for (int k = 0; k < 16; ++k) flipped[at(rng)] = static_cast<char>(rng() & 0xff);
    if (s.layout == HELIX_LAYOUT_LINES && flipped.back() != '\n') flipped += '\n';
    out.emplace_back(fmt::format("16 random bytes changed (round {})", i + 1), flipped);
  }
  std::string invalid_utf8 = s.data;
  for (std::size_t pos = 0; pos < invalid_utf8.size(); pos += 97) invalid_utf8[pos] = '\xc3';
  out.emplace_back("invalid UTF-8 every 97 bytes", invalid_utf8);
  std::string blanks = s.data;  // the host hands a run of NUL bytes over as blanks
  for (std::size_t pos = 0; pos < blanks.size(); pos += 131) blanks[pos] = ' ';
  out.emplace_back("blanks every 131 bytes", blanks);
  out.emplace_back("a 4 MiB line of '{'", std::string(4 << 20, '{') + "\n");
  out.emplace_back("a 1 MiB line of '['", std::string(1 << 20, '[') + "\n");
  std::string binary(64 << 10, '\0');
  for (auto& c : binary) c = static_cast<char>(rng() & 0xff);
  out.emplace_back("64 KiB of random bytes", binary + "\n");
  return out;
}

// Parses `data` in a child process with a time limit; "" when the call returned (with or
// without HELIX_ERROR), else what happened.
std::string parse_isolated(const PluginInfo& plugin, const PluginCheckOptions& options,
                           const Sample& s, const std::string& data) {
  return run_isolated(
      [&] {
        AdapterInstance adapter(plugin, options.config_json);
        RecordBatch batch;
        adapter.parse(s.path.string(), s.layout, 0, data, "", batch);
      },
      options.timeout_s);
}

// Megabytes parsed per second, over repeated whole parses of at least a quarter second.
double parse_speed(const AdapterInstance& adapter, const Sample& s) {
  const auto start = std::chrono::steady_clock::now();
  double seconds = 0;
  uint64_t bytes = 0;
  do {
    parse_whole(adapter, s);
    bytes += s.data.size();
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } while (seconds < 0.25);
  return static_cast<double>(bytes) / (1 << 20) / seconds;
}

bool is_damage(const std::string& warning) {
  for (const char* category : {" invalid_json:", " not_an_object:", " invalid_record:"})
    if (warning.find(category) != std::string::npos) return true;
  return false;
}

class SampleChecks {
 public:
  SampleChecks(const PluginInfo& plugin, const PluginCheckOptions& options, Sample sample,
               bool explicit_sample, CheckReport& report)
      : explicit_(explicit_sample),
        plugin_(plugin),
        options_(options),
        s_(std::move(sample)),
        report_(report),
        rng_(options.seed),
        adapter_(plugin, options.config_json) {}

  void run() {
    if (!probe() || !reference()) return;
    offsets();
    purity();
    if (s_.layout == HELIX_LAYOUT_LINES) {
      chunking_and_growth();
      truncation();
    } else {
      torn_document();
    }
    damage();
    speed();
  }

 private:
  bool probe() {
    std::string head = s_.data.substr(0, 64 << 10);
    const int score = adapter_.probe(s_.path.string(), head, s_.data.size());
    if (score == 0 && !explicit_) {
      report_.note("probe scores 0: another plugin's file; skipped");
      return false;
    }
    report_.check(score > 0, "probe", fmt::format("claims the sample with score {}", score),
                  score == AdapterInstance::kProbeFailed
                      ? "probe failed (it threw); the host reports the plugin and skips it"
                      : "scores 0: the plugin does not claim its own sample");
    return score > 0;
  }

  bool reference() {
    ref_ = parse_whole(adapter_, s_);
    if (ref_.failed) {
      report_.fail("parse", "the whole sample fails: " + ref_.error);
      return false;
    }
    const std::string counts =
        fmt::format("{} events, {} usage records, {} sessions, {} warnings", ref_.events.size(),
                    ref_.usage.size(), ref_.sessions.size(), ref_.warnings.size());
    const bool empty = ref_.events.empty() && ref_.usage.empty() && ref_.sessions.empty();
    if (empty && !explicit_) {
      report_.note("the plugin gives nothing for this file; skipped");
      return false;
    }
    report_.check(!empty, "parse", counts,
                  "no records at all: give samples this plugin reads, or the checks below prove "
                  "nothing");
    return !empty;
  }

  void offsets() {
    const std::string misplaced = misplaced_record(s_, ref_);
    report_.check(misplaced.empty(), "record offsets",
                  "every event and usage record is at a record of the sample",
                  misplaced +
                      "; source_offset must be the byte offset of the record's first "
                      "byte (identity and eviction coverage depend on it)");
    const std::string duplicate = ref_.duplicate_identity();
    report_.check(duplicate.empty(), "identity", "every event has its own (offset, ordinal)",
                  "two events share " + duplicate + "; the host would store only the first");
    if (auto repeated = ref_.repeated_uids())
      report_.note(
          fmt::format("{} events repeat the (session, uid, ordinal) of an earlier one; "
                      "the host keeps the first copy",
                      repeated));
  }

  void purity() {
    const ParseOutput again = parse_whole(adapter_, s_);
    AdapterInstance fresh(plugin_, options_.config_json);
    const ParseOutput other = parse_whole(fresh, s_);
    std::string d = ref_.difference(again, true);
    if (d.empty()) d = ref_.difference(other, true);
    report_.check(d.empty(), "purity", "the same input gives the same output, in any instance",
                  "the same input gave other output: " + d);
  }

  // The host hands LINES sources over in calls cut at line boundaries wherever a chunk or a
  // sweep ends, with the state the previous call saved; the output must not depend on where.
  // A call whose transaction rolled back is repeated with the same state.
  void chunking_and_growth() {
    std::string chunk_problem, growth_problem;
    std::uniform_int_distribution<std::size_t> calls(1, 12);
    for (int round = 0; round < options_.rounds && chunk_problem.empty(); ++round) {
      const auto cuts = random_cuts(s_, rng_, calls(rng_));
      ParseOutput chunked = parse_in_calls(adapter_, s_, cuts);
      chunk_problem = ref_.difference(chunked, true);
      if (!chunk_problem.empty())
        chunk_problem = fmt::format("cut at {}: {}", fmt::join(cuts, ","), chunk_problem);
    }
    report_.check(chunk_problem.empty(), "chunk boundaries",
                  fmt::format("identical output under {} random cuttings", options_.rounds),
                  chunk_problem);
    for (int round = 0; round < options_.rounds && growth_problem.empty(); ++round) {
      growth_problem = growth(random_cuts(s_, rng_, calls(rng_)));
    }
    report_.check(growth_problem.empty(), "exactly once across growth",
                  fmt::format("{} growth sequences (each call also replayed after a rollback) "
                              "gave every record once",
                              options_.rounds),
                  growth_problem);
  }

  // The file grows to each cut in turn; every sweep parses what is new, and sometimes a sweep
  // is rolled back and the same call repeated with the same state.
  std::string growth(const std::vector<uint64_t>& cuts) {
    ParseOutput all;
    std::string state;
    for (std::size_t i = 0; i < cuts.size(); ++i) {
      const uint64_t end = i + 1 < cuts.size() ? cuts[i + 1] : s_.data.size();
      const auto data = std::string_view(s_.data).substr(cuts[i], end - cuts[i]);
      std::string replay_state = state;
      ParseOutput discarded, kept;
      parse_into(adapter_, s_, cuts[i], data, replay_state, discarded);
      parse_into(adapter_, s_, cuts[i], data, state, kept);
      discarded.seal();
      kept.seal();
      if (auto d = discarded.difference(kept, true); !d.empty())
        return fmt::format("the call from offset {} gave other output when repeated: {}", cuts[i],
                           d);
      all.absorb(kept);
    }
    all.seal();
    if (auto dup = all.duplicate_identity(); !dup.empty())
      return "a record came twice as the file grew: " + dup;
    if (auto d = ref_.difference(all, false); !d.empty())
      return fmt::format("growing through {}: {}", fmt::join(cuts, ","), d);
    return {};
  }

  // A file rewritten shorter is parsed again from offset 0 with empty state: what a prefix gives
  // must be records the whole file gives too (a record completed by later lines may wait for
  // them, but must not be emitted half done: the host keeps the first copy of an identity). The
  // instance is the one that read the whole file, so nothing of an earlier source may leak into
  // the next.
  void truncation() {
    std::string problem;
    for (int round = 0; round < options_.rounds && problem.empty(); ++round) {
      const auto cuts = random_cuts(s_, rng_, 1);
      const uint64_t end = cuts.back();
      Sample prefix = s_;
      prefix.data.resize(end);
      ParseOutput got = parse_whole(adapter_, prefix);
      if (auto extra = got.not_in(ref_); !extra.empty())
        problem =
            fmt::format("the first {} bytes gave a record the whole file does not: {}", end, extra);
    }
    ParseOutput again = parse_whole(adapter_, s_);
    if (problem.empty()) problem = ref_.difference(again, true);
    report_.check(problem.empty(), "truncation and rewrite",
                  fmt::format("{} shorter versions gave only records of the whole file, then "
                              "the whole file its own",
                              options_.rounds),
                  problem);
  }

  // A writer that rewrites the document in place can be read half written: the call must fail
  // (or report the damage), so the host keeps what it stored.
  void torn_document() {
    std::string problem;
    std::uniform_int_distribution<std::size_t> at(1, s_.data.size() > 1 ? s_.data.size() - 1 : 1);
    for (int round = 0; round < options_.rounds && problem.empty(); ++round) {
      Sample torn = s_;
      torn.data.resize(at(rng_));
      if (torn.data.find_first_not_of(" \t\r\n") == std::string::npos) continue;
      ParseOutput got = parse_whole(adapter_, torn);
      const bool damage_reported = std::any_of(got.warnings.begin(), got.warnings.end(),
                                               [](const auto& w) { return is_damage(w.second); });
      if (!got.failed && !damage_reported)
        problem = fmt::format(
            "the document cut at byte {} of {} parsed as complete ({} events); it must fail the "
            "call (HELIX_ERROR) so that the host keeps the session's events",
            torn.data.size(), s_.data.size(), got.events.size());
    }
    ParseOutput again = parse_whole(adapter_, s_);
    if (problem.empty()) problem = ref_.difference(again, true);
    report_.check(problem.empty(), "torn document",
                  fmt::format("{} torn copies failed the call or reported damage, then the whole "
                              "document gave its own output",
                              options_.rounds),
                  problem);
  }

  void damage() {
    const auto inputs = damaged_inputs(s_, rng_);
    std::string problem;
    for (const auto& [name, data] : inputs) {
      if (auto what = parse_isolated(plugin_, options_, s_, data); !what.empty()) {
        problem = fmt::format("{} on {}", what, name);
        break;
      }
    }
    report_.check(problem.empty(), "exception safety",
                  fmt::format("{} damaged inputs: every call returned", inputs.size()), problem);
  }

  void speed() {
    const double mb_per_s = parse_speed(adapter_, s_);
    report_.check(mb_per_s >= options_.min_mb_per_s, "speed",
                  fmt::format("{:.1f} MB/s ({:.2f} s per MB)", mb_per_s, 1 / mb_per_s),
                  fmt::format("{:.2f} MB/s, below the {:.1f} MB/s asked for", mb_per_s,
                              options_.min_mb_per_s));
  }

  bool explicit_;  // named by the user, not found in a directory: it must be claimed
  const PluginInfo& plugin_;
  const PluginCheckOptions& options_;
  Sample s_;
  CheckReport& report_;
  std::mt19937_64 rng_;
  AdapterInstance adapter_;
  ParseOutput ref_;
};

}  // namespace

bool matches_a_pattern(const PluginInfo& plugin, const std::filesystem::path& path) {
  return layout_of(plugin, path).has_value();
}

void check_adapter_sample(const PluginInfo& plugin, const PluginCheckOptions& options,
                          const fs::path& path, bool explicit_sample, CheckReport& report) {
  report.section("sample " + path.string());
  Sample s = load_sample(plugin, path, report);
  report.note(fmt::format("read as {}, {} bytes",
                          s.layout == HELIX_LAYOUT_DOCUMENT ? "DOCUMENT" : "LINES", s.data.size()));
  SampleChecks(plugin, options, std::move(s), explicit_sample, report).run();
}

}  // namespace helix
