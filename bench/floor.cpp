// helix-floor: what each library's share of a cold sweep costs on its own, on one core, for a
// corpus and the store a sweep made of it. The sum is a floor no sweep built on these libraries
// goes under; bench/run sets it beside the measured sweep and ccusage. See bench/README.md.
//
//   helix-floor --corpus DIR [--corpus DIR ...] --work DIR [--store FILE] [--old-rules FILE]
//
// Prints one line per stage: `floor <stage> <cpu seconds> <bytes>`. Stages: read (the files
// into memory), json (every line through the SDK's LineParser), redact (every line through the
// host's Redactor, as records are), zstd (the files in 1 MiB frames at level 3, as packs are),
// rows (the store's event rows inserted into an empty copy of their table and its indexes, one
// transaction), fts (the store's searchable texts indexed into an empty FTS5 table); rows and
// fts only with --store.
//
// --old-rules names the rule table of before issue 15 (host/lib/privacy/secret_patterns.tsv
// at 6a59cf5: 42 rules, no keywords): the same lines are then redacted three more ways, each a
// line `redaction <variant> <cpu seconds> <bytes> <secrets replaced> <digest of the output>`:
// before (those rules, chosen by one RE2::Set, as helix did), every_rule (today's rules, each
// run on every text holding one of its keywords) and prefilter (today's rules chosen by the
// keyword prefilter, as helix does): the last two must print the same digest.
#include "model/payload_pack.hpp"
#include "privacy/redactor.hpp"
#include "privacy/secret_rules.hpp"
#include "store/database.hpp"

#include <helix/json.hpp>

#include <sys/resource.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

double cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

void stage(const char* name, int64_t bytes, const std::function<void()>& work) {
  const double start = cpu_seconds();
  work();
  std::printf("floor %s %.3f %lld\n", name, cpu_seconds() - start, static_cast<long long>(bytes));
  std::fflush(stdout);
}

std::vector<std::string> read_corpus(const std::vector<fs::path>& dirs, int64_t& bytes) {
  std::vector<fs::path> paths;
  for (const auto& dir : dirs)
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (e.is_regular_file() && e.path().extension() == ".jsonl") paths.push_back(e.path());
  std::vector<std::string> files;
  for (const auto& p : paths) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    files.push_back(std::move(text).str());
    bytes += static_cast<int64_t>(files.back().size());
  }
  return files;
}

template <class F>
void for_each_line(const std::vector<std::string>& files, F&& f) {
  for (const auto& file : files) {
    std::string_view rest = file;
    while (!rest.empty()) {
      const auto end = rest.find('\n');
      f(rest.substr(0, end));
      rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
    }
  }
}

// The rule table of before issue 15: id, confidence, group, regex, source; its "low" rules
// were not applied. No keywords: every rule is chosen by the RE2::Set alone.
std::vector<helix::SecretRule> old_rules(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  std::vector<helix::SecretRule> rules;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string field; std::getline(fields, field, '\t');) f.push_back(field);
    if (f.size() != 5) throw std::runtime_error(file.string() + ": a line without 5 columns");
    if (f[1] == "low") continue;
    helix::SecretRule r;
    r.id = f[0];
    r.group = std::stoi(f[2]);
    r.regex = f[3];
    rules.push_back(std::move(r));
  }
  return rules;
}

// Every line through a Redactor built with `options`, construction included; then the count of
// secrets replaced and a digest of what came out.
void redaction(const char* variant, const std::vector<std::string>& files, int64_t bytes,
               const helix::RedactorOptions& options) {
  int64_t replaced = 0;
  std::size_t digest = 0;
  const double start = cpu_seconds();
  {
    helix::Redactor redactor({}, options);
    std::string record;
    for_each_line(files, [&](std::string_view line) {
      record.assign(line);
      replaced += redactor.redact_record(record);
      digest = digest * 1000003u ^ std::hash<std::string>{}(record);
    });
  }
  std::printf("redaction %s %.3f %lld %lld %016zx\n", variant, cpu_seconds() - start,
              static_cast<long long>(bytes), static_cast<long long>(replaced), digest);
  std::fflush(stdout);
}

// A new database file with the store attached as `src` (read from, never written).
std::unique_ptr<helix::Database> empty_database(const fs::path& file, const fs::path& store) {
  fs::remove(file);
  fs::remove(file.string() + "-wal");
  auto db = std::make_unique<helix::Database>(file);
  db->exec("ATTACH '" + store.string() + "' AS src");
  return db;
}

// The event rows of `store`, inserted into an empty table of the same definition and indexes.
void insert_rows(const fs::path& store, const fs::path& work) {
  const auto owner = empty_database(work / "floor-rows.db", store);
  helix::Database& db = *owner;
  auto schema = db.prepare(
      "SELECT sql FROM src.sqlite_schema WHERE tbl_name = 'events' AND type IN ('table', "
      "'index') AND sql IS NOT NULL ORDER BY type DESC");
  std::vector<std::string> ddl;
  while (schema.step()) ddl.push_back(schema.text(0));
  for (const auto& sql : ddl) db.exec(sql);
  db.exec("CREATE TEMP TABLE rows AS SELECT * FROM src.events ORDER BY id");  // not timed
  stage("rows", 0, [&] { db.exec("BEGIN; INSERT INTO main.events SELECT * FROM rows; COMMIT"); });
}

// The store's searchable texts (read back from their packs first, untimed) indexed into an
// empty FTS5 table with the store's tokenizer (host/lib/schema.cpp), one transaction.
void index_texts(const fs::path& store, const fs::path& work) {
  const auto owner = empty_database(work / "floor-fts.db", store);
  helix::Database& db = *owner;
  db.exec("CREATE TEMP TABLE texts AS SELECT id, tool, body FROM src.search_event_texts");
  db.exec(
      "CREATE VIRTUAL TABLE fts USING fts5(tool, body, content = '', "
      "tokenize = 'unicode61 remove_diacritics 2')");
  stage("fts", 0, [&] {
    db.exec("BEGIN; INSERT INTO fts (rowid, tool, body) SELECT id, tool, body FROM texts; COMMIT");
  });
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<fs::path> corpus;
  fs::path store, work, old_rules_file;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--corpus")
      corpus.emplace_back(argv[i + 1]);
    else if (flag == "--store")
      store = argv[i + 1];
    else if (flag == "--work")
      work = argv[i + 1];
    else if (flag == "--old-rules")
      old_rules_file = argv[i + 1];
  }
  if (corpus.empty() || work.empty()) {
    std::cerr << "usage: helix-floor --corpus DIR [--corpus DIR ...] --work DIR [--store FILE] "
                 "[--old-rules FILE]\n";
    return 2;
  }
  try {
    fs::create_directories(work);
    int64_t bytes = 0;
    std::vector<std::string> files;
    const double read_start = cpu_seconds();
    files = read_corpus(corpus, bytes);
    std::printf("floor read %.3f %lld\n", cpu_seconds() - read_start,
                static_cast<long long>(bytes));
    stage("json", bytes, [&] {
      helix::json::LineParser parser;
      for_each_line(files, [&](std::string_view line) {
        parser.parse(line, [](const boost::json::value&, std::size_t) {});
      });
    });
    stage("redact", bytes, [&] {
      helix::Redactor redactor;
      std::string record;
      for_each_line(files, [&](std::string_view line) {
        record.assign(line);
        redactor.redact_record(record);
      });
    });
    stage("zstd", bytes, [&] {
      helix::PackCompressor compressor;
      constexpr std::size_t kFrame = 1 << 20;
      for (const auto& file : files)
        for (std::size_t at = 0; at < file.size(); at += kFrame)
          compressor.compress(std::string_view(file).substr(at, kFrame));
    });
    if (!old_rules_file.empty()) {
      const auto before = old_rules(old_rules_file);
      const std::vector<helix::SecretAllow> no_allows;
      redaction("before", files, bytes,
                {.choice = helix::RuleChoice::kRe2Set, .rules = &before, .allows = &no_allows});
      redaction("every_rule", files, bytes, {.choice = helix::RuleChoice::kEveryRule});
      redaction("prefilter", files, bytes, {.choice = helix::RuleChoice::kPrefilter});
    }
    if (!store.empty()) {
      insert_rows(store, work);
      index_texts(store, work);
    }
  } catch (const std::exception& e) {
    std::cerr << "helix-floor: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
