// helix-corpus: writes a deterministic, realistic agent history (Claude Code, Codex, Grok) as
// the agents lay it out under their homes, for benchmarks. See bench/README.md.
//
//   helix-corpus --out DIR [--bytes 1GiB] [--sessions 9000] [--seed 1] [--mix 60,30,10]
//                [--single-file BYTES] [--append-percent P]
//
// DIR/claude/projects/<cwd>/<id>.jsonl (+ <id>/subagents/agent-*.jsonl),
// DIR/codex/sessions/YYYY/MM/DD/rollout-...-<id>.jsonl, DIR/grok/sessions/<cwd>/<id>/*.
// Point CLAUDE_CONFIG_DIR, CODEX_HOME and GROK_HOME at DIR/claude, DIR/codex, DIR/grok.
//
// Every session draws from its own generator seeded by (seed, session index), so a session's
// bytes do not depend on the others, and --append-percent can replay a session's state and add
// turns where it stopped (same ids, growing token totals): the "1% new lines" of a live history.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace fs = std::filesystem;

// xoshiro256** seeded by splitmix64: the same sequence on every platform and compiler.
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (auto& word : s_) {
      seed += 0x9e3779b97f4a7c15ULL;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      word = z ^ (z >> 31);
    }
  }
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  uint64_t below(uint64_t n) { return n == 0 ? 0 : next() % n; }
  int64_t range(int64_t lo, int64_t hi) {  // inclusive
    return lo + static_cast<int64_t>(below(static_cast<uint64_t>(hi - lo + 1)));
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  bool chance(double p) { return unit() < p; }
  // Log-normal around a median: the shape of tool outputs and message lengths.
  size_t lognormal(double median, double sigma, size_t lo, size_t hi) {
    const double u1 = std::max(unit(), 1e-12), u2 = unit();
    const double gauss = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    const double v = median * std::exp(sigma * gauss);
    return std::clamp(static_cast<size_t>(v), lo, hi);
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::array<uint64_t, 4> s_{};
};

// A vocabulary of code identifiers and English words, built once from a fixed seed, so text
// compresses like source code and prose (neither random bytes nor one repeated string).
class Words {
 public:
  Words() {
    static constexpr std::array<std::string_view, 48> kSyllables = {
        "parse",  "chunk", "state",  "read",  "write",  "file",   "path",   "store",
        "event",  "sess",  "token",  "json",  "line",   "offset", "buf",    "size",
        "count",  "user",  "tool",   "call",  "result", "error",  "config", "load",
        "init",   "run",   "test",   "check", "sum",    "map",    "list",   "node",
        "item",   "key",   "value",  "index", "cache",  "pack",   "commit", "sweep",
        "plugin", "host",  "record", "model", "usage",  "time",   "stamp",  "ctx"};
    static constexpr std::array<std::string_view, 64> kEnglish = {
        "the",     "a",      "to",      "of",    "and",   "in",      "is",       "that",
        "for",     "it",     "this",    "with",  "we",    "not",     "on",       "be",
        "as",      "are",    "now",     "can",   "file",  "test",    "function", "should",
        "when",    "then",   "error",   "so",    "let",   "me",      "check",    "will",
        "from",    "which",  "need",    "fix",   "value", "returns", "change",   "the",
        "here",    "also",   "if",      "but",   "all",   "first",   "update",   "run",
        "see",     "code",   "because", "case",  "new",   "line",    "looks",    "good",
        "instead", "passes", "fails",   "build", "add",   "remove",  "missing",  "again"};
    Rng rng(0x5eed);
    for (auto w : kEnglish) words_.emplace_back(w);
    for (int i = 0; i < 1500; ++i) {
      std::string id(kSyllables[rng.below(kSyllables.size())]);
      const int parts = static_cast<int>(rng.range(1, 3));
      for (int p = 0; p < parts; ++p) {
        id += rng.chance(0.5) ? "_" : "";
        id += kSyllables[rng.below(kSyllables.size())];
      }
      words_.push_back(id);
    }
  }
  // Zipf-like: low indexes (common words) far more often than the tail.
  const std::string& pick(Rng& rng) const {
    const double u = rng.unit();
    return words_[static_cast<size_t>(u * u * u * static_cast<double>(words_.size()))];
  }

 private:
  std::vector<std::string> words_;
};

const Words& words() {
  static const Words w;
  return w;
}

// ---- text of the kinds agents write ----------------------------------------------------

void prose(Rng& rng, std::string& out, size_t n) {
  const size_t end = out.size() + n;
  bool start = true;
  while (out.size() < end) {
    std::string w = words().pick(rng);
    if (start && !w.empty())
      w[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(w[0])));
    out += w;
    start = rng.chance(0.08);
    out += start ? (rng.chance(0.15) ? ".\n\n" : ". ") : (rng.chance(0.05) ? ", " : " ");
  }
}

void code_line(Rng& rng, std::string& out) {
  out.append(static_cast<size_t>(rng.range(0, 4)) * 2, ' ');
  switch (rng.below(5)) {
    case 0:
      out += "auto " + words().pick(rng) + " = " + words().pick(rng) + "(" + words().pick(rng) +
             ", " + std::to_string(rng.below(4096)) + ");";
      break;
    case 1:
      out += "if (" + words().pick(rng) + " == \"" + words().pick(rng) + "\") {";
      break;
    case 2:
      out += "return " + words().pick(rng) + "." + words().pick(rng) + "();";
      break;
    case 3:
      out += "// " + words().pick(rng) + " " + words().pick(rng) + " " + words().pick(rng) + " " +
             words().pick(rng);
      break;
    default:
      out += "}";
      break;
  }
}

std::string file_path(Rng& rng) {
  return "src/" + words().pick(rng) + "/" + words().pick(rng) + (rng.chance(0.5) ? ".cpp" : ".py");
}

// A tool's output: a file with line numbers (Read), grep hits, a build/test log, or prose.
void tool_output(Rng& rng, std::string& out, size_t n) {
  const size_t end = out.size() + n;
  const auto kind = rng.below(4);
  const std::string path = file_path(rng);
  for (int line = 1; out.size() < end; ++line) {
    switch (kind) {
      case 0: {
        char num[16];
        std::snprintf(num, sizeof num, "%6d\xe2\x86\x92", line);  // "     1→" as Claude's Read
        out += num;
        code_line(rng, out);
        break;
      }
      case 1:
        out += file_path(rng) + ":" + std::to_string(rng.range(1, 2000)) + ":";
        code_line(rng, out);
        break;
      case 2:
        out += "[" + std::to_string(line) + "/" + std::to_string(n / 60) + "] " +
               (rng.chance(0.9) ? "PASS " : "FAIL ") + words().pick(rng) +
               "::" + words().pick(rng) + " (" + std::to_string(rng.below(900)) + " ms)";
        break;
      default:
        prose(rng, out, 80);
        break;
    }
    out += '\n';
  }
}

void base64(Rng& rng, std::string& out, size_t n) {
  static constexpr std::string_view kChars =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < n; ++i) out += kChars[rng.below(64)];
}

std::string base62(Rng& rng, size_t n) {
  static constexpr std::string_view kChars =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::string s;
  for (size_t i = 0; i < n; ++i) s += kChars[rng.below(62)];
  return s;
}

std::string uuid(Rng& rng, std::string_view version = "4") {
  static constexpr std::string_view kHex = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < 32; ++i) {
    if (i == 8 || i == 12 || i == 16 || i == 20) s += '-';
    s += i == 12 ? version[0] : kHex[rng.below(16)];
  }
  return s;
}

void escape(std::string& out, std::string_view text) {
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += c;
    }
  }
}

std::string jstr(std::string_view text) {
  std::string s = "\"";
  escape(s, text);
  return s + "\"";
}

std::string iso(int64_t ms) {
  const time_t secs = static_cast<time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms % 1000));
  return buf;
}

// A realistic tool output size: median 1.5 KB, one in ten above 13 KB, a few near 100 KB;
// no more than a third of what the session has left to write, so small sessions stay small.
size_t output_size(Rng& rng, uint64_t remaining) {
  return std::min(rng.lognormal(1500, 1.6, 20, 120000), std::max<size_t>(200, remaining / 3));
}

// Tool steps in one turn: up to `most`, fewer when the session is nearly written.
int64_t max_steps(uint64_t remaining, int64_t most) {
  return std::min<int64_t>(most, static_cast<int64_t>(remaining / 20000));
}

// ---- output files ------------------------------------------------------------------------

// Buffers one file's lines; `skip` replays a session without writing (the append mode).
class Sink {
 public:
  Sink(fs::path path, bool skip) : path_(std::move(path)), skip_(skip) {}
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;
  ~Sink() {
    flush();
    if (file_) std::fclose(file_);
  }
  std::string& line() { return buf_; }
  void end_line() {
    buf_ += '\n';
    written_ += buf_.size() - mark_;
    mark_ = buf_.size();
    if (buf_.size() > (1 << 20)) flush();
  }
  uint64_t written() const { return written_; }
  void set_skip(bool skip) {
    flush();
    skip_ = skip;
  }

 private:
  void flush() {
    if (!skip_ && !buf_.empty()) {
      if (!file_) {
        fs::create_directories(path_.parent_path());
        file_ = std::fopen(path_.c_str(), "ab");
        if (!file_) throw std::runtime_error("cannot write " + path_.string());
      }
      if (std::fwrite(buf_.data(), 1, buf_.size(), file_) != buf_.size())
        throw std::runtime_error("short write to " + path_.string());
    }
    buf_.clear();
    mark_ = 0;
  }
  fs::path path_;
  bool skip_;
  std::FILE* file_ = nullptr;
  std::string buf_;
  size_t mark_ = 0;
  uint64_t written_ = 0;
};

struct SessionPlan {
  int flavor;  // 0 claude, 1 codex, 2 grok
  uint64_t index, target_bytes;
  int64_t start_ms;
};

struct Options {
  fs::path out;
  uint64_t bytes = 1ULL << 30, sessions = 9000, seed = 1, single_file = 0;
  std::array<double, 3> mix = {60, 30, 10};
  double append_percent = 0;
};

std::string cwd_for(Rng& rng) {
  return "/home/dev/work/" + words().pick(rng) + (rng.chance(0.3) ? "/" + words().pick(rng) : "");
}

// ---- Claude Code -------------------------------------------------------------------------

class ClaudeSession {
 public:
  ClaudeSession(const Options& opt, const SessionPlan& plan, bool skip)
      : rng_(opt.seed * 1000003 + plan.index) {
    id_ = uuid(rng_);
    cwd_ = cwd_for(rng_);
    branch_ = rng_.chance(0.7) ? "main" : "feature/" + words().pick(rng_);
    model_ = rng_.chance(0.6) ? "claude-opus-4-6" : "claude-sonnet-4-5-20250929";
    std::string dir = cwd_;
    std::replace(dir.begin(), dir.end(), '/', '-');
    project_ = opt.out / "claude" / "projects" / dir;
    ts_ = plan.start_ms;
    main_ = std::make_unique<Sink>(project_ / (id_ + ".jsonl"), skip);
    // One session in eight delegates to subagents, each with a file of its own.
    if (rng_.chance(0.125)) {
      agent_ = base62(rng_, 17);
      std::transform(agent_.begin(), agent_.end(), agent_.begin(), [](char c) {
        return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      });
      sub_ = std::make_unique<Sink>(project_ / id_ / "subagents" / ("agent-a" + agent_ + ".jsonl"),
                                    skip);
    }
  }

  uint64_t written() const { return main_->written() + (sub_ ? sub_->written() : 0); }
  void set_skip(bool skip) {
    main_->set_skip(skip);
    if (sub_) sub_->set_skip(skip);
  }

  void turn(uint64_t remaining) {
    const bool side = sub_ && rng_.chance(0.3);
    Sink& out = side ? *sub_ : *main_;
    if (!side && rng_.chance(0.5)) snapshot(out);
    std::string prompt;
    prose(rng_, prompt, rng_.lognormal(300, 1.0, 10, 8000));
    user(out, side, jstr(prompt), "");
    const int64_t steps = rng_.range(0, max_steps(remaining, 8));
    for (int64_t s = 0; s <= steps; ++s) response(out, side, s == steps, remaining);
    if (!side && rng_.chance(0.6)) system_line(out);
  }

 private:
  std::string envelope(bool side, std::string_view type) {
    std::string uid = uuid(rng_);
    std::string s = "{\"parentUuid\":" + (parent_.empty() ? "null" : jstr(parent_)) +
                    ",\"isSidechain\":" + (side ? "true" : "false") +
                    ",\"userType\":\"external\",\"cwd\":" + jstr(cwd_) + ",\"sessionId\":\"" + id_ +
                    "\",\"version\":\"2.1.32\",\"gitBranch\":" + jstr(branch_) +
                    (side ? ",\"agentId\":\"a" + agent_ + "\"" : "") + ",\"type\":\"" +
                    std::string(type) + "\"";
    parent_ = uid;
    last_uuid_ = uid;
    return s;
  }
  std::string tail() {
    ts_ += rng_.range(200, 40000);
    return ",\"uuid\":\"" + last_uuid_ + "\",\"timestamp\":\"" + iso(ts_) + "\"}";
  }

  void user(Sink& out, bool side, const std::string& content, const std::string& extra) {
    std::string& l = out.line();
    l += envelope(side, "user");
    l += ",\"message\":{\"role\":\"user\",\"content\":" + content + "}" + extra + tail();
    out.end_line();
  }

  void snapshot(Sink& out) {
    const std::string mid = uuid(rng_);
    out.line() += "{\"type\":\"file-history-snapshot\",\"messageId\":\"" + mid +
                  "\",\"snapshot\":{\"messageId\":\"" + mid +
                  "\",\"trackedFileBackups\":{},\"timestamp\":\"" + iso(ts_) +
                  "\"},\"isSnapshotUpdate\":false}";
    out.end_line();
  }

  void system_line(Sink& out) {
    std::string& l = out.line();
    l += envelope(false, "system");
    l += ",\"subtype\":\"turn_duration\",\"durationMs\":" +
         std::to_string(rng_.range(2000, 300000)) + ",\"isMeta\":false" + tail();
    out.end_line();
  }

  // The input of a generated tool call: a test command, an edit, or a file to read.
  std::string tool_input(const std::string& tool) {
    if (tool == "Bash")
      return "{\"command\":" +
             jstr("cd " + cwd_ + " && make test 2>&1 | tail -" +
                  std::to_string(rng_.range(5, 200))) +
             ",\"description\":" + jstr("Run the " + words().pick(rng_) + " tests") + "}";
    if (tool == "Edit" || tool == "Write") {
      std::string old_s, new_s;
      for (int i = 0; i < rng_.range(1, 30); ++i) {
        code_line(rng_, old_s);
        old_s += '\n';
      }
      for (int i = 0; i < rng_.range(1, 40); ++i) {
        code_line(rng_, new_s);
        new_s += '\n';
      }
      return "{\"file_path\":" + jstr(cwd_ + "/" + file_path(rng_)) +
             ",\"old_string\":" + jstr(old_s) + ",\"new_string\":" + jstr(new_s) + "}";
    }
    return "{\"file_path\":" + jstr(cwd_ + "/" + file_path(rng_)) + "}";
  }

  // One API response: one line per content block, each repeating the usage (same message.id
  // and requestId); only the last carries the final output_tokens, unless the stream was
  // never finalised (then every line has the message_start figure).
  void response(Sink& out, bool side, bool final, uint64_t remaining) {
    const std::string msg = "msg_01" + base62(rng_, 22), req = "req_011C" + base62(rng_, 20);
    std::vector<std::string> blocks;
    if (rng_.chance(0.35)) {
      std::string t;
      prose(rng_, t, rng_.lognormal(600, 1.0, 40, 20000));
      std::string sig;
      base64(rng_, sig, rng_.range(300, 1200));
      blocks.push_back("{\"type\":\"thinking\",\"thinking\":" + jstr(t) + ",\"signature\":\"" +
                       sig + "\"}");
    }
    if (final || rng_.chance(0.4)) {
      std::string t;
      prose(rng_, t, rng_.lognormal(final ? 700 : 150, 1.0, 5, 15000));
      blocks.push_back("{\"type\":\"text\",\"text\":" + jstr(t) + "}");
    }
    std::string tool_id;
    std::string tool;
    if (!final) {
      tool_id = "toolu_01" + base62(rng_, 22);
      static constexpr std::array<std::string_view, 5> kTools = {"Bash", "Read", "Grep", "Edit",
                                                                 "Write"};
      tool = kTools[rng_.below(kTools.size())];
      blocks.push_back("{\"type\":\"tool_use\",\"id\":\"" + tool_id + "\",\"name\":\"" + tool +
                       "\",\"input\":" + tool_input(tool) + "}");
    }
    const int64_t input = rng_.range(1, 12), creation = rng_.range(0, 30000);
    cache_read_ += rng_.range(500, 9000);
    const bool finalised = rng_.chance(0.55);
    const int64_t out_final = rng_.range(20, 4000);
    for (size_t b = 0; b < blocks.size(); ++b) {
      const bool last = b + 1 == blocks.size();
      const int64_t output = finalised && last ? out_final : rng_.range(1, 9);
      std::string& l = out.line();
      l += envelope(side, "assistant");
      l += ",\"message\":{\"model\":\"" + model_ + "\",\"id\":\"" + msg +
           "\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[" + blocks[b] +
           "],\"stop_reason\":" +
           (finalised && last ? (final ? "\"end_turn\"" : "\"tool_use\"") : "null") +
           ",\"stop_sequence\":null,\"usage\":{\"input_tokens\":" + std::to_string(input) +
           ",\"cache_creation_input_tokens\":" + std::to_string(creation) +
           ",\"cache_read_input_tokens\":" + std::to_string(cache_read_) +
           ",\"cache_creation\":{\"ephemeral_5m_input_tokens\":0,\"ephemeral_1h_input_tokens\":" +
           std::to_string(creation) + "},\"output_tokens\":" + std::to_string(output) +
           ",\"service_tier\":\"standard\",\"inference_geo\":\"not_available\"}},\"requestId\":\"" +
           req + "\"" + tail();
      out.end_line();
    }
    if (!final) tool_result(out, side, tool_id, tool, remaining);
  }

  // The user line that carries a tool call's result (and, for Bash and Read, its
  // toolUseResult), with an occasional planted secret and error.
  void tool_result(Sink& out, bool side, const std::string& tool_id, const std::string& tool,
                   uint64_t remaining) {
    std::string result;
    tool_output(rng_, result, output_size(rng_, remaining));
    if (rng_.chance(0.03))
      result += "\nexport ANTHROPIC_API_KEY=sk-ant-api03-" + base62(rng_, 93) + "AA\n";
    const bool error = rng_.chance(0.05);
    std::string extra;
    if (tool == "Bash")
      extra = ",\"toolUseResult\":{\"stdout\":" + jstr(result) +
              ",\"stderr\":\"\",\"interrupted\":false,\"isImage\":false}";
    else if (tool == "Read")
      extra = ",\"toolUseResult\":{\"type\":\"text\",\"file\":{\"filePath\":" +
              jstr(cwd_ + "/" + file_path(rng_)) + ",\"content\":" + jstr(result) +
              ",\"numLines\":" + std::to_string(std::count(result.begin(), result.end(), '\n')) +
              ",\"startLine\":1}}";
    user(out, side,
         "[{\"tool_use_id\":\"" + tool_id + "\",\"type\":\"tool_result\",\"content\":" +
             jstr(result) + (error ? ",\"is_error\":true" : "") + "}]",
         extra);
  }

  Rng rng_;
  std::string id_, cwd_, branch_, model_, agent_, parent_, last_uuid_;
  fs::path project_;
  int64_t ts_ = 0, cache_read_ = 0;
  std::unique_ptr<Sink> main_, sub_;
};

// ---- Codex CLI ---------------------------------------------------------------------------

class CodexSession {
 public:
  CodexSession(const Options& opt, const SessionPlan& plan, bool skip)
      : rng_(opt.seed * 1000003 + plan.index), ts_(plan.start_ms) {
    id_ = uuid(rng_, "7");
    cwd_ = cwd_for(rng_);
    model_ = rng_.chance(0.5) ? "gpt-5.3-codex" : "gpt-5.1-codex-max";
    const std::string start = iso(ts_);  // 2026-02-23T11:40:23.298Z
    std::string stamp = start.substr(0, 19);
    std::replace(stamp.begin(), stamp.end(), ':', '-');
    out_ = std::make_unique<Sink>(opt.out / "codex" / "sessions" / start.substr(0, 4) /
                                      start.substr(5, 2) / start.substr(8, 2) /
                                      ("rollout-" + stamp + "-" + id_ + ".jsonl"),
                                  skip);
    std::string instructions;
    prose(rng_, instructions, 13000);
    emit("session_meta", "{\"id\":\"" + id_ + "\",\"timestamp\":\"" + start +
                             "\",\"cwd\":" + jstr(cwd_) +
                             ",\"originator\":\"codex_cli_rs\",\"cli_version\":\"0.104.0\","
                             "\"source\":\"cli\",\"model_provider\":\"openai\","
                             "\"base_instructions\":{\"text\":" +
                             jstr(instructions) + "},\"git\":{\"commit_hash\":\"" +
                             base62(rng_, 40) + "\",\"branch\":\"main\"}}");
  }

  uint64_t written() const { return out_->written(); }
  void set_skip(bool skip) { out_->set_skip(skip); }

  void turn(uint64_t remaining) {
    const std::string turn = uuid(rng_, "7");
    std::string instructions;
    prose(rng_, instructions, 900);
    emit("turn_context", "{\"turn_id\":\"" + turn + "\",\"cwd\":" + jstr(cwd_) +
                             ",\"approval_policy\":\"on-request\",\"sandbox_policy\":{\"type\":"
                             "\"workspace-write\",\"network_access\":false},\"model\":\"" +
                             model_ +
                             "\",\"effort\":\"high\",\"summary\":\"auto\","
                             "\"user_instructions\":" +
                             jstr(instructions) + "}");
    emit("event_msg", "{\"type\":\"task_started\",\"turn_id\":\"" + turn +
                          "\",\"model_context_window\":258400}");
    std::string prompt;
    prose(rng_, prompt, rng_.lognormal(300, 1.0, 10, 8000));
    emit("response_item",
         "{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":"
         "\"input_text\",\"text\":" +
             jstr(prompt) + "}]}");
    emit("event_msg", "{\"type\":\"user_message\",\"message\":" + jstr(prompt) +
                          ",\"images\":[],\"local_images\":[],\"text_elements\":[]}");
    const int64_t steps = rng_.range(0, max_steps(remaining, 10));
    for (int64_t s = 0; s < steps; ++s) {
      reasoning();
      const std::string call = "call_" + base62(rng_, 24);
      emit("response_item", "{\"type\":\"function_call\",\"name\":\"exec_command\",\"arguments\":" +
                                jstr("{\"cmd\":" + jstr("rg -n " + words().pick(rng_) + " src") +
                                     ",\"yield_time_ms\":10000}") +
                                ",\"call_id\":\"" + call + "\"}");
      std::string output = "Chunk ID: " + base62(rng_, 6) + "\nWall time: 0.0" +
                           std::to_string(rng_.below(999)) + " seconds\nProcess exited with code " +
                           (rng_.chance(0.9) ? "0" : "1") + "\nOutput:\n";
      tool_output(rng_, output, output_size(rng_, remaining));
      emit("response_item", "{\"type\":\"function_call_output\",\"call_id\":\"" + call +
                                "\",\"output\":" + jstr(output) + "}");
      token_count();
    }
    reasoning();
    std::string answer;
    prose(rng_, answer, rng_.lognormal(700, 1.0, 5, 15000));
    emit("event_msg", "{\"type\":\"agent_message\",\"message\":" + jstr(answer) + "}");
    emit("response_item",
         "{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":"
         "\"output_text\",\"text\":" +
             jstr(answer) + "}]}");
    token_count();
    emit("event_msg", "{\"type\":\"task_complete\",\"turn_id\":\"" + turn +
                          "\",\"last_agent_message\":" + jstr(answer.substr(0, 200)) + "}");
  }

 private:
  void emit(std::string_view type, const std::string& payload) {
    ts_ += rng_.range(50, 20000);
    out_->line() += "{\"timestamp\":\"" + iso(ts_) + "\",\"type\":\"" + std::string(type) +
                    "\",\"payload\":" + payload + "}";
    out_->end_line();
  }
  void reasoning() {
    std::string summary, secret;
    prose(rng_, summary, rng_.lognormal(80, 0.6, 10, 400));
    base64(rng_, secret, static_cast<size_t>(rng_.range(800, 4000)));
    emit("response_item",
         "{\"type\":\"reasoning\",\"summary\":[{\"type\":\"summary_text\","
         "\"text\":" +
             jstr(summary) +
             "}],\"content\":null,"
             "\"encrypted_content\":\"" +
             secret + "\"}");
    emit("event_msg", "{\"type\":\"agent_reasoning\",\"text\":" + jstr(summary) + "}");
  }
  std::string usage(int64_t in, int64_t cached, int64_t out, int64_t reasoning) const {
    return "{\"input_tokens\":" + std::to_string(in) +
           ",\"cached_input_tokens\":" + std::to_string(cached) +
           ",\"output_tokens\":" + std::to_string(out) +
           ",\"reasoning_output_tokens\":" + std::to_string(reasoning) +
           ",\"total_tokens\":" + std::to_string(in + out) + "}";
  }
  // Codex writes each token_count twice, the second a verbatim repeat.
  void token_count() {
    const int64_t in = rng_.range(3000, 40000), cached = in * rng_.range(0, 9) / 10,
                  out = rng_.range(20, 3000), reasoning = out * rng_.range(0, 6) / 10;
    total_in_ += in, total_cached_ += cached, total_out_ += out, total_reasoning_ += reasoning;
    const std::string payload =
        "{\"type\":\"token_count\",\"info\":{\"total_token_usage\":" +
        usage(total_in_, total_cached_, total_out_, total_reasoning_) +
        ",\"last_token_usage\":" + usage(in, cached, out, reasoning) +
        ",\"model_context_window\":258400},\"rate_limits\":{\"primary\":{\"used_percent\":" +
        std::to_string(rng_.below(100)) + ".0,\"window_minutes\":300,\"resets_at\":1771864831}}}";
    emit("event_msg", payload);
    out_->line() +=
        "{\"timestamp\":\"" + iso(ts_) + "\",\"type\":\"event_msg\",\"payload\":" + payload + "}";
    out_->end_line();
  }

  Rng rng_;
  int64_t ts_;
  std::string id_, cwd_, model_;
  int64_t total_in_ = 0, total_cached_ = 0, total_out_ = 0, total_reasoning_ = 0;
  std::unique_ptr<Sink> out_;
};

// ---- Grok Build --------------------------------------------------------------------------

class GrokSession {
 public:
  GrokSession(const Options& opt, const SessionPlan& plan, bool skip)
      : rng_(opt.seed * 1000003 + plan.index), ts_(plan.start_ms) {
    id_ = uuid(rng_, "7");
    cwd_ = cwd_for(rng_);
    std::string dir;
    for (const char c : cwd_) dir += c == '/' ? std::string("%2F") : std::string(1, c);
    dir_ = opt.out / "grok" / "sessions" / dir / id_;
    updates_ = std::make_unique<Sink>(dir_ / "updates.jsonl", skip);
    chat_ = std::make_unique<Sink>(dir_ / "chat_history.jsonl", skip);
    events_ = std::make_unique<Sink>(dir_ / "events.jsonl", skip);
    std::string system;
    prose(rng_, system, 8000);
    chat_->line() += "{\"type\":\"system\",\"content\":" + jstr(system) + "}";
    chat_->end_line();
  }
  ~GrokSession() {
    if (skip_) return;
    std::FILE* f = std::fopen((dir_ / "summary.json").c_str(), "wb");
    if (!f) return;
    std::fprintf(f,
                 "{\n  \"info\": {\"id\": \"%s\", \"cwd\": \"%s\"},\n  \"created_at\": \"%s\",\n"
                 "  \"num_messages\": %d,\n  \"current_model_id\": \"grok-code-fast-1\"\n}\n",
                 id_.c_str(), cwd_.c_str(), iso(ts_).c_str(), prompt_ * 4);
    std::fclose(f);
  }

  uint64_t written() const { return updates_->written() + chat_->written() + events_->written(); }
  void set_skip(bool skip) {
    skip_ = skip;
    updates_->set_skip(skip);
    chat_->set_skip(skip);
    events_->set_skip(skip);
  }

  void turn(uint64_t remaining) {
    const std::string prompt_id = uuid(rng_);
    std::string prompt;
    prose(rng_, prompt, rng_.lognormal(300, 1.0, 10, 8000));
    event("{\"ts\":\"" + iso(ts_) + "\",\"type\":\"turn_started\",\"session_id\":\"" + id_ +
          "\",\"turn_number\":" + std::to_string(prompt_) + ",\"model_id\":\"grok-code-fast-1\"}");
    update("session/update",
           "{\"sessionUpdate\":\"user_message_chunk\",\"content\":{\"type\":"
           "\"text\",\"text\":" +
               jstr(prompt) +
               "},\"_meta\":{\"modelId\":"
               "\"grok-code-fast-1\",\"promptIndex\":" +
               std::to_string(prompt_) + "}}",
           prompt_id);
    chat("{\"type\":\"user\",\"content\":[{\"type\":\"text\",\"text\":" +
         jstr("<user_query>\n" + prompt + "\n</user_query>") +
         "}],\"prompt_index\":" + std::to_string(prompt_) + "}");
    const int64_t steps = rng_.range(0, max_steps(remaining, 8));
    for (int64_t s = 0; s < steps; ++s) {
      const std::string call = "call_" + base62(rng_, 24);
      const std::string cmd = "rg -n " + words().pick(rng_) + " src";
      update("session/update",
             "{\"sessionUpdate\":\"tool_call\",\"toolCallId\":\"" + call +
                 "\",\"title\":\"run_terminal_command\",\"rawInput\":{\"command\":" + jstr(cmd) +
                 "}}",
             prompt_id);
      event("{\"ts\":\"" + iso(ts_) +
            "\",\"type\":\"tool_started\",\"tool_name\":"
            "\"run_terminal_command\"}");
      std::string output;
      tool_output(rng_, output, output_size(rng_, remaining));
      update("session/update",
             "{\"sessionUpdate\":\"tool_call_update\",\"toolCallId\":\"" + call +
                 "\",\"status\":\"completed\",\"content\":[{\"type\":\"content\","
                 "\"content\":{\"type\":\"text\",\"text\":" +
                 jstr(output) + "}}],\"rawOutput\":{\"type\":\"Bash\",\"output_for_prompt\":" +
                 jstr("exit: 0\n" + output) + ",\"exit_code\":0,\"command\":" + jstr(cmd) + "}}",
             prompt_id);
      event("{\"ts\":\"" + iso(ts_) +
            "\",\"type\":\"tool_completed\",\"tool_name\":"
            "\"run_terminal_command\",\"duration_ms\":" +
            std::to_string(rng_.range(5, 9000)) + ",\"outcome\":\"success\",\"tool_call_id\":\"" +
            call + "\"}");
      chat("{\"type\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"id\":\"" + call +
           "\",\"name\":\"run_terminal_command\",\"arguments\":" +
           jstr("{\"command\": " + jstr(cmd) + "}") + "}],\"model_id\":\"grok-code-fast-1\"}");
      chat("{\"type\":\"tool_result\",\"tool_call_id\":\"" + call +
           "\",\"content\":" + jstr("exit: 0\n" + output) + "}");
    }
    // The answer streams as many small chunks, one line each.
    std::string answer;
    prose(rng_, answer, rng_.lognormal(700, 1.0, 5, 15000));
    for (size_t at = 0; at < answer.size();) {
      const size_t n = std::min(answer.size() - at, static_cast<size_t>(rng_.range(8, 120)));
      update("session/update",
             "{\"sessionUpdate\":\"agent_message_chunk\",\"content\":{\"type\":"
             "\"text\",\"text\":" +
                 jstr(answer.substr(at, n)) + "}}",
             prompt_id);
      at += n;
    }
    chat("{\"type\":\"assistant\",\"content\":" + jstr(answer) +
         ",\"model_id\":\"grok-code-fast-1\"}");
    const int64_t in = rng_.range(3000, 60000), out = rng_.range(20, 4000);
    update("_x.ai/session/update",
           "{\"sessionUpdate\":\"turn_completed\",\"prompt_id\":\"" + prompt_id +
               "\",\"stop_reason\":\"end_turn\",\"usage\":{\"inputTokens\":" + std::to_string(in) +
               ",\"outputTokens\":" + std::to_string(out) + ",\"totalTokens\":" +
               std::to_string(in + out) + ",\"cachedReadTokens\":" + std::to_string(in / 2) +
               ",\"cacheCreationTokens\":0,\"reasoningTokens\":" + std::to_string(out / 4) +
               ",\"modelCalls\":" + std::to_string(steps + 1) + "}}",
           "");
    event("{\"ts\":\"" + iso(ts_) + "\",\"type\":\"turn_ended\",\"outcome\":\"completed\"}");
    ++prompt_;
  }

 private:
  void update(std::string_view method, const std::string& update, const std::string& prompt_id) {
    ts_ += rng_.range(20, 3000);
    ++event_;
    updates_->line() += "{\"timestamp\":" + std::to_string(ts_ / 1000) + ",\"method\":\"" +
                        std::string(method) + "\",\"params\":{\"sessionId\":\"" + id_ +
                        "\",\"update\":" + update + ",\"_meta\":{\"eventId\":\"" + id_ + "-" +
                        std::to_string(event_) + "\",\"agentTimestampMs\":" + std::to_string(ts_) +
                        (prompt_id.empty() ? "" : ",\"promptId\":\"" + prompt_id + "\"") + "}}}";
    updates_->end_line();
  }
  void chat(const std::string& line) {
    chat_->line() += line;
    chat_->end_line();
  }
  void event(const std::string& line) {
    events_->line() += line;
    events_->end_line();
  }

  Rng rng_;
  int64_t ts_;
  std::string id_, cwd_;
  fs::path dir_;
  int prompt_ = 0, event_ = 0;
  bool skip_ = false;
  std::unique_ptr<Sink> updates_, chat_, events_;
};

// ---- the corpus --------------------------------------------------------------------------

uint64_t parse_size(const std::string& s) {
  size_t used = 0;
  const double v = std::stod(s, &used);
  std::string unit = s.substr(used);
  double mult = 1;
  if (unit == "K" || unit == "KiB")
    mult = 1024.0;
  else if (unit == "M" || unit == "MiB")
    mult = 1024.0 * 1024;
  else if (unit == "G" || unit == "GiB")
    mult = 1024.0 * 1024 * 1024;
  else if (!unit.empty() && unit != "B")
    throw std::runtime_error("bad size: " + s);
  return static_cast<uint64_t>(v * mult);
}

// Session sizes are heavy-tailed (Pareto, alpha 1.2: most sessions small, a few very large),
// the largest about 1/64 of the corpus (16 MiB of 1 GiB), scaled to the total.
std::vector<SessionPlan> plan(const Options& opt) {
  Rng rng(opt.seed);
  std::vector<SessionPlan> plans(opt.sessions);
  std::vector<double> weight(opt.sessions);
  const double cap = static_cast<double>(opt.sessions) * 6.0 / 64.0;  // Pareto(1.2) mean: 6
  double sum = 0;
  const double mix_total = opt.mix[0] + opt.mix[1] + opt.mix[2];
  const int64_t end_ms = 1793491200000;  // 2026-11-01T00:00:00Z
  for (uint64_t i = 0; i < opt.sessions; ++i) {
    weight[i] = std::min(std::pow(std::max(rng.unit(), 1e-9), -1.0 / 1.2), std::max(cap, 1.0));
    sum += weight[i];
    const double f = rng.unit() * mix_total;
    plans[i].flavor = f < opt.mix[0] ? 0 : f < opt.mix[0] + opt.mix[1] ? 1 : 2;
    plans[i].index = i;
    plans[i].start_ms = end_ms - static_cast<int64_t>(rng.unit() * 120.0 * 86400000.0);
  }
  // A session is never smaller than its flavor's first turn (Codex opens with ~13 KB of
  // instructions, Grok with an 8 KB system prompt): find the scale that makes the sizes,
  // floors included, add up to the total.
  static constexpr std::array<double, 3> kFloor = {3000, 20000, 14000};
  const auto total_at = [&](double scale) {
    double t = 0;
    for (uint64_t i = 0; i < opt.sessions; ++i)
      t += std::max(kFloor[static_cast<size_t>(plans[i].flavor)], weight[i] * scale);
    return t;
  };
  double lo = 0, hi = static_cast<double>(opt.bytes) / sum * 4;
  for (int i = 0; i < 60; ++i) {
    const double mid = (lo + hi) / 2;
    (total_at(mid) < static_cast<double>(opt.bytes) ? lo : hi) = mid;
  }
  for (uint64_t i = 0; i < opt.sessions; ++i)
    plans[i].target_bytes = static_cast<uint64_t>(
        std::max(kFloor[static_cast<size_t>(plans[i].flavor)], weight[i] * lo));
  return plans;
}

template <typename Session>
uint64_t write_session(const Options& opt, const SessionPlan& p, uint64_t extra_bytes) {
  const bool append = extra_bytes > 0;
  Session s(opt, p, append);
  while (s.written() < p.target_bytes) s.turn(p.target_bytes - s.written());
  if (!append) return s.written();
  const uint64_t before = s.written();
  s.set_skip(false);
  while (s.written() - before < extra_bytes) s.turn(extra_bytes - (s.written() - before));
  return s.written() - before;
}

uint64_t write(const Options& opt, const SessionPlan& p, uint64_t extra = 0) {
  switch (p.flavor) {
    case 0:
      return write_session<ClaudeSession>(opt, p, extra);
    case 1:
      return write_session<CodexSession>(opt, p, extra);
    default:
      return write_session<GrokSession>(opt, p, extra);
  }
}

int run(const Options& opt) {
  if (opt.single_file > 0) {  // one Claude session of about this size, in one file
    const SessionPlan p{0, 0, opt.single_file, 1790000000000};
    std::printf("wrote %llu bytes in 1 session\n", static_cast<unsigned long long>(write(opt, p)));
    return 0;
  }
  std::vector<SessionPlan> plans = plan(opt);
  uint64_t total = 0;
  if (opt.append_percent <= 0) {
    for (const auto& p : plans) total += write(opt, p);
    std::printf("wrote %llu bytes in %zu sessions\n", static_cast<unsigned long long>(total),
                plans.size());
    return 0;
  }
  // New lines go where a user works: the most recent sessions, a few turns each.
  std::sort(plans.begin(), plans.end(),
            [](const SessionPlan& a, const SessionPlan& b) { return a.start_ms > b.start_ms; });
  const auto budget =
      static_cast<uint64_t>(static_cast<double>(opt.bytes) * opt.append_percent / 100);
  size_t touched = 0;
  for (const auto& p : plans) {
    if (total >= budget) break;
    total += write(opt, p, std::min<uint64_t>(budget - total, uint64_t{64} * 1024));
    ++touched;
  }
  std::printf("appended %llu bytes to %zu sessions\n", static_cast<unsigned long long>(total),
              touched);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Options opt;
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (i + 1 >= argc) throw std::runtime_error("missing value after " + arg);
      const std::string v = argv[++i];
      if (arg == "--out")
        opt.out = v;
      else if (arg == "--bytes")
        opt.bytes = parse_size(v);
      else if (arg == "--sessions")
        opt.sessions = std::stoull(v);
      else if (arg == "--seed")
        opt.seed = std::stoull(v);
      else if (arg == "--single-file")
        opt.single_file = parse_size(v);
      else if (arg == "--append-percent")
        opt.append_percent = std::stod(v);
      else if (arg == "--mix") {
        if (std::sscanf(v.c_str(), "%lf,%lf,%lf", &opt.mix[0], &opt.mix[1], &opt.mix[2]) != 3)
          throw std::runtime_error("--mix wants claude,codex,grok weights, e.g. 60,30,10");
      } else
        throw std::runtime_error("unknown option " + arg);
    }
    if (opt.out.empty()) throw std::runtime_error("--out DIR is required");
    return run(opt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "helix-corpus: %s\n", e.what());
    return 2;
  }
}
