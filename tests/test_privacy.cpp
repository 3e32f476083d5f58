// Privacy end to end: secrets of every shape (tests/support/planted_secrets.hpp) planted into
// copies of every flavor's real fixtures are swept by the real helix-host into a real store,
// and not one of them is left anywhere: the store's bytes (database file, WAL, every payload
// pack decompressed), the search index's terms, what the commands print, and hook.log;
// configured rules and allow entries apply; the store's directory and files are private
// whatever the umask.
#define BOOST_TEST_MODULE privacy
#include <boost/test/unit_test.hpp>

#include "ingest/sweep.hpp"
#include "planted_secrets.hpp"
#include "store/store.hpp"
#include "temp_dir.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <zstd.h>
#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <set>

namespace fs = std::filesystem;
namespace json = boost::json;
using helix::test::PlantedSecret;
using helix::test::TempDir;

namespace {

const char* const kFlavors[] = {"claude", "codex", "grok"};

// The members whose string values are message text, commands, tool input and output.
bool plantable(std::string_view key) {
  static const std::set<std::string_view> keys = {
      "text",  "content", "output", "arguments", "command", "message", "summary", "title",
      "query", "input",   "stdout", "stderr",    "result",  "prompt",  "thinking"};
  return keys.count(key) > 0;
}

// Appends planted secrets to the text members of one flavor's copied files, line by line.
class Planter {
 public:
  explicit Planter(std::vector<PlantedSecret> secrets) : secrets_(std::move(secrets)) {}

  // Plants every secret at least once: as many per text member as that takes.
  void plant_tree(const fs::path& root) {
    walk(root, false);
    per_member_ = std::max<int64_t>(
        1, (static_cast<int64_t>(secrets_.size()) + members_ - 1) / std::max<int64_t>(members_, 1));
    walk(root, true);
  }

  int64_t planted() const { return planted_; }
  const std::vector<PlantedSecret>& secrets() const { return secrets_; }

 private:
  void walk(const fs::path& root, bool write) {
    write_ = write;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      const auto ext = entry.path().extension();
      if (!entry.is_regular_file() || (ext != ".jsonl" && ext != ".json")) continue;
      const std::string text = helix::test::read_file(entry.path());
      std::string out;
      for (std::size_t pos = 0; pos < text.size();) {
        std::size_t end = text.find('\n', pos);
        const bool newline = end != std::string::npos;
        if (!newline) end = text.size();
        out += plant_line(text.substr(pos, end - pos));
        if (newline) out += '\n';
        pos = end + 1;
      }
      if (write_) helix::test::write_file(entry.path(), out);
    }
  }

  std::string plant_line(const std::string& line) {
    boost::system::error_code ec;
    json::value v = json::parse(line, ec);
    if (ec) return line;  // damaged fixture lines stay as they are
    plant(v, false);
    return json::serialize(v);
  }

  void plant(json::value& v, bool text_member) {
    if (auto* o = v.if_object()) {
      for (auto& [k, child] : *o) plant(child, plantable(k));
    } else if (auto* a = v.if_array()) {
      for (auto& child : *a) plant(child, text_member);
    } else if (auto* s = v.if_string()) {
      boost::system::error_code ec;
      json::value inner = s->size() > 1 && (s->front() == '{' || s->front() == '[')
                              ? json::parse(*s, ec)
                              : json::value();
      if (!ec && (inner.is_object() || inner.is_array())) {  // JSON text (Codex arguments)
        plant(inner, false);
        *s = json::serialize(inner);
      } else if (text_member && !write_) {
        ++members_;
      } else if (text_member) {
        static const char* const kSeparators[] = {"\n", " ", "\n\n$ ", "\t", ": "};
        std::string planted(*s);
        for (int64_t k = 0; k < per_member_; ++k) {
          const auto& secret = secrets_[static_cast<std::size_t>(planted_) % secrets_.size()];
          planted += kSeparators[planted_ % 5];
          planted += secret.text;
          ++planted_;
        }
        *s = planted;
      }
    }
  }

  std::vector<PlantedSecret> secrets_;
  int64_t planted_ = 0;
  int64_t members_ = 0;     // text members, counted by the first walk
  int64_t per_member_ = 1;  // secrets appended to each
  bool write_ = false;      // the second walk plants and writes
};

std::string decompress(const std::string& packed, int64_t raw_bytes) {
  std::string out(static_cast<std::size_t>(raw_bytes), '\0');
  const std::size_t n = ZSTD_decompress(out.data(), out.size(), packed.data(), packed.size());
  BOOST_REQUIRE(!ZSTD_isError(n));
  return out;
}

// Every pack of the store, decompressed.
std::vector<std::string> packs(const fs::path& db_file) {
  helix::Store store(db_file, /*read_only=*/true);
  auto st = store.database().prepare("SELECT raw_bytes, data FROM payload_packs");
  std::vector<std::string> out;
  while (st.step()) out.push_back(decompress(st.blob(1), st.integer(0)));
  return out;
}

std::string read_if_exists(const fs::path& file) {
  return fs::exists(file) ? helix::test::read_file(file) : std::string();
}

unsigned mode_of(const fs::path& p) {
  struct stat st {};
  BOOST_REQUIRE(::stat(p.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

std::vector<std::string> found_in(const std::set<std::string>& needles,
                                  const std::vector<std::pair<std::string, std::string>>& blobs) {
  std::vector<std::string> hits;
  for (const auto& [name, bytes] : blobs)
    for (const auto& n : needles)
      if (bytes.find(n) != std::string::npos) hits.push_back(name + ": " + n);
  return hits;
}

// A planted home (each flavor with its own secrets), a config with an extra rule and an
// allow-list, swept once by the real binary under umask 022.
struct World {
  TempDir dir;
  fs::path home = dir / "home", store_dir = dir / "store", config = dir / "config.toml";
  std::map<std::string, std::vector<PlantedSecret>> secrets;  // per flavor
  std::map<std::string, int64_t> planted;
  PlantedSecret allowed, extra;
  std::string out, err;
  int exit_code = -1;

  World() {
    const std::string make =
        fmt::format("{}/../scripts/make-sample-home {} {}", HELIX_TEST_FIXTURE_DIR "/..",
                    HELIX_TEST_FIXTURE_DIR, home.string());
    BOOST_REQUIRE(std::system(make.c_str()) == 0);
    std::mt19937_64 random(7);
    allowed = helix::test::planted_from("allowed", "[[ghp_ALLOWED{29:[A-Za-z0-9]}]]", random);
    extra = helix::test::planted_from("acme-token", "deploy key [[acme_{32:[0-9a-f]}]]", random);
    unsigned seed = 1000;
    for (const char* flavor : kFlavors) {
      auto list = helix::test::planted_secrets(seed += 1000);
      if (std::string(flavor) == "claude") list.insert(list.begin(), {allowed, extra});
      Planter planter(list);
      planter.plant_tree(home / flavor);
      secrets[flavor] = planter.secrets();
      planted[flavor] = planter.planted();
    }
    helix::test::write_file(config, R"(
[[redaction.allow]]
rules = ["github-pat"]
regex = "^ghp_ALLOWED"

[[redaction.rules]]
id = "acme-token"
regex = '\b(acme_[0-9a-f]{32})\b'
)");
    Run r = helix("sweep");
    exit_code = r.exit_code;
    out = r.out;
    err = r.err;
  }

  struct Run {
    int exit_code;
    std::string out, err;
  };

  Run helix(const std::string& args) const {
    const auto err_file = dir / "stderr.txt";
    const std::string cmd = fmt::format(
        "umask 022; CLAUDE_CONFIG_DIR={0}/claude CODEX_HOME={0}/codex GROK_HOME={0}/grok "
        "GEMINI_CLI_HOME={0}/gemini {1} "
        "--config {2} --plugins {3} --store {4} {5} 2>{6}",
        home.string(), HELIX_TEST_HOST_BINARY, config.string(), HELIX_TEST_PLUGIN_DIR,
        store_dir.string(), args, err_file.string());
    Run r{0, "", ""};
    FILE* pipe = ::popen(cmd.c_str(), "r");
    char buf[65536];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) r.out.append(buf, n);
    const int status = ::pclose(pipe);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.err = helix::test::read_file(err_file);
    return r;
  }

  fs::path db() const { return store_dir / "helix.db"; }

  // The random runs of every planted secret but the allow-listed one.
  std::set<std::string> needles() const {
    std::set<std::string> all;
    for (const auto& [flavor, list] : secrets)
      for (const auto& s : list)
        if (s.rule != "allowed") all.insert(s.random_parts.begin(), s.random_parts.end());
    return all;
  }
};

World& world() {
  static World w;
  static bool shown = [] {
    BOOST_TEST_MESSAGE(w.out << w.err);
    return true;
  }();
  BOOST_REQUIRE(shown && w.exit_code == 0);
  return w;
}

}  // namespace

// The control: the planted copies do hold the secrets, and the scan below finds them there.
BOOST_AUTO_TEST_CASE(secrets_were_planted_in_every_flavor) {
  const World& w = world();
  for (const char* flavor : kFlavors) {
    BOOST_TEST_MESSAGE(flavor << ": " << w.planted.at(flavor) << " secrets planted");
    BOOST_TEST(w.planted.at(flavor) >= static_cast<int64_t>(w.secrets.at(flavor).size()),
               flavor);  // every shape at least once
    std::set<std::string> needles;
    for (const auto& s : w.secrets.at(flavor))
      needles.insert(s.random_parts.begin(), s.random_parts.end());
    std::vector<std::pair<std::string, std::string>> files;
    for (const auto& entry : fs::recursive_directory_iterator(w.home / flavor))
      if (entry.is_regular_file())
        files.emplace_back(entry.path().string(), helix::test::read_file(entry.path()));
    BOOST_TEST(found_in(needles, files).size() >= needles.size(), flavor);
  }
}

BOOST_AUTO_TEST_CASE(no_planted_secret_is_left_in_any_byte_of_the_store) {
  const World& w = world();
  const std::set<std::string> all = w.needles();
  std::vector<std::pair<std::string, std::string>> blobs = {
      {"helix.db", helix::test::read_file(w.db())},
      {"helix.db-wal", read_if_exists(w.store_dir / "helix.db-wal")}};
  const auto unpacked = packs(w.db());
  BOOST_TEST(unpacked.size() > 10u);
  for (std::size_t i = 0; i < unpacked.size(); ++i)
    blobs.emplace_back(fmt::format("pack {}", i), unpacked[i]);
  const auto hits = found_in(all, blobs);
  BOOST_TEST(hits.empty(),
             hits.size() << " planted secrets left, first: " << (hits.empty() ? "" : hits.front()));
  // The secrets did reach the store: their markers are there, for nearly every rule.
  std::set<std::string> rules;
  int64_t markers = 0;
  for (const auto& pack : unpacked)
    for (std::size_t at = pack.find("[REDACTED:"); at != std::string::npos;
         at = pack.find("[REDACTED:", at + 1)) {
      ++markers;
      rules.insert(pack.substr(at + 10, pack.find(']', at) - at - 10));
    }
  BOOST_TEST_MESSAGE(markers << " markers of " << rules.size() << " rules in the packs");
  BOOST_TEST(rules.count("acme-token") == 1u);  // the configured rule
  BOOST_TEST(rules.size() >= 150u);
  // The allow-listed token is kept on purpose.
  bool allowed_kept = false;
  for (const auto& pack : unpacked)
    allowed_kept |= pack.find(w.allowed.secret) != std::string::npos;
  BOOST_TEST(allowed_kept);
}

// The search index keeps terms, lower-cased and split at punctuation, not the texts: every term
// of both FTS5 tables, read through fts5vocab, is free of every planted secret's random runs.
BOOST_AUTO_TEST_CASE(the_search_index_holds_no_secret) {
  const World& w = world();
  std::set<std::string> lowered;
  for (std::string n : w.needles()) {
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
    if (n.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789") == std::string::npos)
      lowered.insert(n);  // runs with punctuation are split into other terms
  }
  BOOST_TEST(lowered.size() > 1000u);
  helix::Database db(w.db());
  std::string terms;
  int64_t count = 0;
  for (const char* table : {"search_events", "search_digests"}) {
    db.exec(
        fmt::format("CREATE VIRTUAL TABLE temp.vocab_{0} USING fts5vocab(main, {0}, row)", table));
    auto st = db.prepare(fmt::format("SELECT term FROM temp.vocab_{}", table));
    while (st.step()) {
      terms += st.text(0);
      terms += '\n';
      ++count;
    }
  }
  BOOST_TEST_MESSAGE(count << " search terms");
  BOOST_TEST(count > 1000);
  const auto hits = found_in(lowered, {{"search index", terms}});
  BOOST_TEST(hits.empty(), hits.size() << " left, first: " << (hits.empty() ? "" : hits.front()));
}

// What the commands print: the session list, every session shown and exported, search results.
BOOST_AUTO_TEST_CASE(command_outputs_hold_no_secret) {
  const World& w = world();
  std::vector<std::pair<std::string, std::string>> outputs;
  auto run = [&](const std::string& args) {
    World::Run r = w.helix(args);
    BOOST_TEST(r.exit_code == 0, args << ": " << r.err);
    outputs.emplace_back(args, r.out + r.err);
    return r.out;
  };
  const json::value sessions = json::parse(run("sessions --json"));
  for (const auto& v : sessions.as_array()) {
    const std::string uid(v.at("session_uid").as_string());
    run("show '" + uid + "' --json --bodies");  // uids may hold spaces
    run("export '" + uid + "' --format jsonl");
  }
  for (const char* query : {"token", "password", "key", "secret", "ghp", "REDACTED"})
    run(fmt::format("search {} --json --limit 500", query));
  run("status --json");
  BOOST_TEST(outputs.size() > 20u);
  const auto hits = found_in(w.needles(), outputs);
  BOOST_TEST(hits.empty(), hits.size() << " left, first: " << (hits.empty() ? "" : hits.front()));
}

// hook.log quotes the hook event (the session id, the transcript path) and error messages: a
// secret in any of them is redacted before the line is written.
BOOST_AUTO_TEST_CASE(hook_log_lines_hold_no_secret) {
  const World& w = world();
  std::mt19937_64 random(99);
  const auto jwt =
      helix::test::planted_from("jwt", helix::find_builtin_rule("jwt")->sample, random);
  const auto github = helix::test::planted_from(
      "github-pat", helix::find_builtin_rule("github-pat")->sample, random);
  const auto aws = helix::test::planted_from(
      "aws-access-token", helix::find_builtin_rule("aws-access-token")->sample, random);
  const std::vector<std::string> events = {
      // A usable id (letters, digits, . - _) that is a JWT; a path holding a token.
      json::serialize(json::object{{"session_id", jwt.secret},
                                   {"transcript_path", "/tmp/" + github.secret + "/t.jsonl"},
                                   {"hook_event_name", "Stop"}}),
      // An unusable id (refused, and quoted in the refusal) with a key and control characters.
      json::serialize(json::object{{"session_id", "x\x1b[2J\n" + aws.secret + "\n"},
                                   {"hook_event_name", "Stop"}})};
  for (const auto& event : events) {
    const fs::path file = w.dir / "event.json";
    helix::test::write_file(file, event);
    World::Run r = w.helix("hook claude --foreground --event \"$(cat " + file.string() + ")\"");
    BOOST_TEST(r.exit_code == 0);
  }
  const std::string log = read_if_exists(w.store_dir / "hook.log");
  BOOST_TEST_MESSAGE("hook.log:\n" << log);
  BOOST_TEST(log.find("[REDACTED:") != std::string::npos);
  std::set<std::string> needles;
  for (const auto* p : {&jwt, &github, &aws})
    needles.insert(p->random_parts.begin(), p->random_parts.end());
  const auto hits = found_in(needles, {{"hook.log", log}});
  BOOST_TEST(hits.empty(), hits.size() << " left, first: " << (hits.empty() ? "" : hits.front()));
}

BOOST_AUTO_TEST_CASE(sessions_report_their_redactions) {
  World::Run r = world().helix("sessions --json");
  BOOST_TEST_REQUIRE(r.exit_code == 0);
  std::map<std::string, int64_t> by_flavor;
  const json::value sessions = json::parse(r.out);
  for (const auto& v : sessions.as_array()) {
    const auto& s = v.as_object();
    BOOST_TEST_REQUIRE(s.contains("redactions"));
    BOOST_TEST(s.at("redactions").as_int64() >= 0);
    by_flavor[std::string(s.at("flavor").as_string())] += s.at("redactions").as_int64();
  }
  for (const char* flavor : kFlavors) {
    BOOST_TEST_MESSAGE(flavor << ": " << by_flavor[flavor] << " redactions");
    BOOST_TEST(by_flavor[flavor] > 0, flavor);
  }
  // A second sweep changes nothing, so the counts stay.
  World::Run again = world().helix("sweep");
  BOOST_TEST(again.exit_code == 0);
  World::Run after = world().helix("sessions --json");
  BOOST_TEST(after.out == r.out);
}

// Readers never migrate: a store from before schema version 4 still lists its sessions.
BOOST_AUTO_TEST_CASE(a_store_without_redaction_counts_still_reads) {
  const World& w = world();
  const fs::path old_store = w.dir / "old-store";
  fs::create_directories(old_store);
  helix::test::copy_store(w.db(), old_store / "helix.db");
  {
    helix::Database db(old_store / "helix.db");
    db.exec("DROP TABLE session_redactions; PRAGMA user_version = 3");
  }
  const std::string cmd =
      fmt::format("{} --config {} --store {} sessions --json", HELIX_TEST_HOST_BINARY,
                  w.config.string(), old_store.string());
  FILE* pipe = ::popen(cmd.c_str(), "r");
  std::string out;
  char buf[65536];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  BOOST_TEST(::pclose(pipe) == 0);
  const json::value sessions = json::parse(out);
  BOOST_TEST(!sessions.as_array().empty());
  for (const auto& s : sessions.as_array()) BOOST_TEST(s.at("redactions").as_int64() == 0);
}

BOOST_AUTO_TEST_CASE(the_store_is_private_to_its_user_whatever_the_umask) {
  const World& w = world();
  BOOST_TEST(mode_of(w.store_dir) == 0700u);
  BOOST_TEST(mode_of(w.db()) == 0600u);
  BOOST_TEST(mode_of(w.store_dir / "helix.db.lock") == 0600u);
  // A store left readable by an earlier version is narrowed, and SQLite gives the WAL and
  // shared-memory files it creates the database file's mode.
  fs::permissions(w.db(), fs::perms::group_read | fs::perms::others_read, fs::perm_options::add);
  fs::permissions(w.store_dir, fs::perms::group_read | fs::perms::group_exec,
                  fs::perm_options::add);
  const mode_t old_mask = ::umask(022);
  {
    helix::Store store(w.db());
    BOOST_TEST(mode_of(w.store_dir) == 0700u);
    BOOST_TEST(mode_of(w.db()) == 0600u);
    BOOST_TEST_REQUIRE(fs::exists(w.store_dir / "helix.db-wal"));
    BOOST_TEST(mode_of(w.store_dir / "helix.db-wal") == 0600u);
    BOOST_TEST(mode_of(w.store_dir / "helix.db-shm") == 0600u);
  }
  ::umask(old_mask);
}

// The same planted home swept in this process: while the store is still open its WAL holds
// every page the sweep wrote, and none of them holds a planted secret either.
BOOST_AUTO_TEST_CASE(the_write_ahead_log_of_a_running_store_holds_no_secret) {
  const World& w = world();
  for (const char* flavor : kFlavors) {
    const std::string var = std::string(flavor) == "claude"  ? "CLAUDE_CONFIG_DIR"
                            : std::string(flavor) == "codex" ? "CODEX_HOME"
                                                             : "GROK_HOME";
    ::setenv(var.c_str(), (w.home / flavor).c_str(), 1);
  }
  const helix::Config config = helix::load_config(w.config.string());
  helix::PluginRegistry registry;
  registry.load_directory(HELIX_TEST_PLUGIN_DIR);
  const fs::path db = w.dir / "in-process/helix.db";
  helix::Store store(db);
  helix::Sweep sweep(store, registry, config);
  const auto report = sweep.run();
  BOOST_TEST(report.events_added > 100);
  const std::string wal = read_if_exists(db.string() + "-wal");
  BOOST_TEST_MESSAGE("WAL of the open store: " << wal.size() << " bytes");
  BOOST_TEST(wal.size() > 100'000u);
  const auto hits = found_in(w.needles(), {{"wal", wal}, {"db", helix::test::read_file(db)}});
  BOOST_TEST(hits.empty(), hits.size() << " left, first: " << (hits.empty() ? "" : hits.front()));
}
