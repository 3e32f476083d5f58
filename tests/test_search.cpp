// Full-text search over the real binary and real fixtures: planted words in one session of each
// flavor, phrase and prefix queries, filters, malformed queries, an index that holds no copy of
// the texts yet matches them exactly (after a rewritten source, after eviction), the upgrade of
// an older store's index, and a session whose Tier 1 rows are dropped as retention will drop
// them (its Tier 2 digest keeps it findable).
#define BOOST_TEST_MODULE search
#include <boost/test/unit_test.hpp>
#include <set>

#include "recall_home.hpp"
#include "schema_v10.hpp"
#include "store/database.hpp"
#include "store/schema.hpp"
#include "store/search_index.hpp"
#include "store/store.hpp"
#include "temp_dir.hpp"

namespace json = boost::json;
using helix::test::RecallHome;
using helix::test::Run;
using helix::test::search_json;

namespace {

std::set<std::string> sessions_of(const json::array& hits) {
  std::set<std::string> out;
  for (const auto& h : hits) out.insert(std::string(h.at("session_uid").as_string()));
  return out;
}

const json::array& hits_of(const json::value& session) { return session.at("hits").as_array(); }

int64_t count(helix::Database& db, const std::string& sql) {
  auto st = db.prepare(sql);
  st.step();
  return st.integer(0);
}

// FTS5 compares the index with its content (the view search_event_texts, read back from the
// packs) and fails when an event's row holds other words than its text, or an event that is
// gone still has a row: what a delete handed the wrong values would leave.
void check_index_matches_texts(const std::filesystem::path& store_db) {
  helix::Database db(store_db);
  db.exec("INSERT INTO search_events (search_events, rank) VALUES ('integrity-check', 1)");
}

// Search answers for queries that cover every flavor, both columns, phrases and prefixes.
std::string answers(const RecallHome& home) {
  std::string out;
  for (const char* query :
       {"hello", "quokkafizz", "'\"Permission is hereby granted\"'", "--fts 'zebraw* OR marmoset*'",
        "--fts tool:exec_command", "--fts 'license NOT mit'"})
    out += json::serialize(search_json(home, query)) + "\n";
  return out;
}

struct Swept {
  RecallHome home;
  Swept() {
    Run r = home.helix("sweep");
    BOOST_TEST_MESSAGE(r.out << r.err);
    BOOST_REQUIRE_EQUAL(r.exit_code, 0);
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(title_from_prompt_drops_leading_tags_and_folds_lines) {
  using helix::title_from_prompt;
  BOOST_TEST(title_from_prompt("can you add a standard MIT license?") ==
             "can you add a standard MIT license?");
  BOOST_TEST(title_from_prompt("<command-name>/exit</command-name>\n<command-message>exit"
                               "</command-message>\n<command-args></command-args>") == "");
  BOOST_TEST(title_from_prompt("<ide_opened_file>The user opened a.ts</ide_opened_file> fix\nthe "
                               "build") == "fix the build");
  BOOST_TEST(title_from_prompt("<bash-input>uv run ty check</bash-input>") == "");
  BOOST_TEST(title_from_prompt("a < b and <b>bold</b>") == "a < b and <b>bold</b>");
  const std::string long_prompt(300, 'x');
  BOOST_TEST(title_from_prompt(long_prompt) == std::string(80, 'x') + "\xE2\x80\xA6");
}

BOOST_AUTO_TEST_CASE(the_view_holds_the_events_the_sweep_indexes) {
  // The view search_event_texts (schema) and SearchIndexWriter::add (code) each decide which
  // events are indexed; FTS5 deletes by the view, so they must agree on every kind.
  helix::test::TempDir dir;
  helix::Store store(dir / "helix.db");
  helix::Database& db = store.database();
  const char* kinds[] = {"user_msg", "assistant_msg",      "thinking", "tool_call", "tool_result",
                         "error",    "test_run",           "edit",     "retry",     "lifecycle",
                         "decision", "human_intervention", "other",    "completion"};  // schema.md
  int64_t offset = 0;
  auto add_event = [&](const std::string& kind, const char* tool) {
    auto st = db.prepare(
        "INSERT INTO events (session_uid, kind, tool, source_id, generation, source_offset, "
        "ordinal) VALUES ('s', ?, ?, 1, 0, ?, 0)");
    st.bind(1, kind).bind_text_or_null(2, tool ? tool : "").bind(3, offset++).run();
    return db.last_insert_rowid();
  };
  for (const char* kind : kinds) {
    const int64_t id = add_event(kind, "Bash");  // a tool name and no text: no pack needed
    BOOST_TEST_CONTEXT(kind) {
      BOOST_TEST(count(db, fmt::format("SELECT COUNT(*) FROM search_event_texts WHERE id = {}",
                                       id)) == (helix::is_searchable_kind(kind) ? 1 : 0));
    }
  }
  // Neither tool nor text: nothing to index, in the view as in add().
  const int64_t bare = add_event("user_msg", nullptr);
  BOOST_TEST(
      count(db, fmt::format("SELECT COUNT(*) FROM search_event_texts WHERE id = {}", bare)) == 0);
}

BOOST_FIXTURE_TEST_SUITE(over_real_fixtures, Swept)

BOOST_AUTO_TEST_CASE(a_planted_word_is_found_in_its_session_for_every_flavor) {
  // Each word was planted in exactly one event text of one session (recall_home.hpp).
  const std::pair<const char*, const char*> planted[] = {
      {"quokkafizz", RecallHome::kClaude},    // the user's first prompt
      {"zebrawomble", RecallHome::kCodex},    // a shell command the agent ran
      {"marmosetglyph", RecallHome::kGrok}};  // the first prompt, in two files of the session
  for (const auto& [word, session] : planted) {
    const auto sessions = search_json(home, word);
    BOOST_TEST_CONTEXT(word) {
      BOOST_TEST(sessions_of(sessions) == std::set<std::string>{session});
      for (const auto& s : sessions) {
        for (const char* key : {"session_uid", "flavor", "repo", "title", "started_at", "hits"})
          BOOST_TEST(s.as_object().contains(key), key);
        for (const auto& h : s.at("hits").as_array()) {
          for (const char* key : {"ts", "kind", "snippet", "seq", "tier"})
            BOOST_TEST(h.as_object().contains(key), key);
          // JSON snippets carry no display marks.
          const std::string snippet(h.at("snippet").as_string());
          BOOST_TEST(snippet.find(word) != std::string::npos);
          BOOST_TEST(snippet.find("**") == std::string::npos);
        }
      }
    }
  }
  // Grok keeps the prompt in chat_history.jsonl and updates.jsonl: one event, one hit.
  const auto grok = search_json(home, "marmosetglyph");
  BOOST_TEST(grok.size() == 1u);
  BOOST_TEST(hits_of(grok.at(0)).size() == 1u);
  BOOST_TEST(hits_of(grok.at(0)).at(0).at("kind").as_string() == "user_msg");
  const auto claude = search_json(home, "quokkafizz --kind user_msg");
  BOOST_TEST_REQUIRE(claude.size() == 1u);
  {  // the hit names the event that holds the word, as `show` lists it
    Run show = home.helix(std::string("show ") + RecallHome::kClaude + " --json");
    const json::value doc = json::parse(show.out);
    std::vector<int64_t> holders;
    for (const auto& e : doc.at("events").as_array())
      if (e.at("text").is_string() &&
          std::string(e.at("text").as_string()).find("quokkafizz") != std::string::npos &&
          e.at("kind").as_string() == "user_msg")
        holders.push_back(e.at("seq").as_int64());
    BOOST_TEST(holders == std::vector<int64_t>{hits_of(claude.at(0)).at(0).at("seq").as_int64()});
  }
  // The codex command `echo hello-from-zebrawomble && ls -la` is a tool call of exec_command.
  const auto codex = search_json(home, "zebrawomble --kind tool_call");
  BOOST_TEST_REQUIRE(codex.size() == 1u);
  BOOST_TEST(hits_of(codex.at(0)).at(0).at("tool").as_string() == "exec_command");
}

BOOST_AUTO_TEST_CASE(phrases_match_words_in_order_and_prefixes_match_word_starts) {
  BOOST_TEST(sessions_of(search_json(home, "'\"standard quokkafizz license\"'")) ==
             std::set<std::string>{RecallHome::kClaude});
  BOOST_TEST(search_json(home, "'\"license quokkafizz standard\"'").empty());
  BOOST_TEST(sessions_of(search_json(home, "'quokkaf*'")) ==
             std::set<std::string>{RecallHome::kClaude});
  BOOST_TEST(search_json(home, "quokkaf").empty());  // a bare word is a whole word
  BOOST_TEST(sessions_of(search_json(home, "--fts 'marmoset* OR zebraw*'")) ==
             (std::set<std::string>{RecallHome::kGrok, RecallHome::kCodex}));
  BOOST_TEST(search_json(home, "--fts 'quokkafizz NOT license'").empty());
  // Without --fts the operators are words like the others.
  BOOST_TEST(search_json(home, "'marmoset* OR zebraw*'").empty());
}

BOOST_AUTO_TEST_CASE(filters_narrow_the_hits) {
  // "hello" occurs in the codex and the grok session (hello.txt), not in the claude one.
  BOOST_TEST(sessions_of(search_json(home, "hello")) ==
             (std::set<std::string>{RecallHome::kCodex, RecallHome::kGrok}));
  BOOST_TEST(sessions_of(search_json(home, "hello --flavor grok")) ==
             std::set<std::string>{RecallHome::kGrok});
  BOOST_TEST(search_json(home, "hello --limit 1").size() == 1u);
  BOOST_TEST(search_json(home, "hello --since 2999-01-01").empty());
  BOOST_TEST(search_json(home, "hello --until 2000-01-01").empty());
  for (const auto& s : search_json(home, "hello --kind assistant_msg"))
    for (const auto& h : hits_of(s)) BOOST_TEST(h.at("kind").as_string() == "assistant_msg");
  // One column of the events' index (digests have neither: they give no hits, no error).
  BOOST_TEST(sessions_of(search_json(home, "--fts tool:exec_command")) ==
             std::set<std::string>{RecallHome::kCodex});
  BOOST_TEST(sessions_of(search_json(home, "--fts body:zebrawomble")) ==
             std::set<std::string>{RecallHome::kCodex});
  BOOST_TEST(search_json(home, "--fts tool:zebrawomble").empty());
  BOOST_TEST(home.helix("search --fts tool:exec_command --kind digest").exit_code == 2);
  Run text = home.helix("search quokkafizz");
  BOOST_TEST(text.exit_code == 0);
  BOOST_TEST(text.out.find("claude:cf564e14") != std::string::npos);  // its short id
  BOOST_TEST(text.out.find("1 session found") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_malformed_fts_query_is_a_usage_error_that_says_why) {
  for (const char* query : {"hello.txt", "'\"unterminated'", "'hello AND'", "nosuchcolumn:word"}) {
    BOOST_TEST_CONTEXT(query) {
      Run r = home.helix(std::string("search --fts ") + query);
      BOOST_TEST(r.exit_code == 2);
      BOOST_TEST(r.err.find("cannot read the FTS5 query") != std::string::npos);
      BOOST_TEST(r.out.empty());
      // The same text without --fts is searched as it is.
      BOOST_TEST(home.helix(std::string("search ") + query).exit_code == 0);
    }
  }
  BOOST_TEST(home.helix("search --fts '\"hello.txt\"'").exit_code == 0);  // quoted is fine
  BOOST_TEST(home.helix("search").exit_code == 2);
}

BOOST_AUTO_TEST_CASE(sessions_show_the_agents_title_or_one_from_the_first_prompt) {
  Run r = home.helix("sessions --json");
  BOOST_REQUIRE(r.exit_code == 0);
  std::map<std::string, std::pair<std::string, std::string>> titles;
  const json::value doc = json::parse(r.out);
  for (const auto& s : doc.as_array()) {
    const auto& o = s.as_object();
    titles[std::string(o.at("session_uid").as_string())] = {
        o.at("title").is_string() ? std::string(o.at("title").as_string()) : "",
        o.at("title_source").is_string() ? std::string(o.at("title_source").as_string()) : ""};
  }
  // Claude gave this session no title; its first prompt is the title.
  BOOST_TEST(titles[RecallHome::kClaude].first == "can you add a standard quokkafizz license?");
  BOOST_TEST(titles[RecallHome::kClaude].second == "first_prompt");
  // Grok's summary.json names the session (generated_title).
  BOOST_TEST(titles[RecallHome::kGrok].first == "The directory contains hello.txt.");
  BOOST_TEST(titles[RecallHome::kGrok].second == "agent");
  BOOST_TEST(titles[RecallHome::kCodex].first ==
             "Create hello.txt saying hello, then show me the directory.");
}

BOOST_AUTO_TEST_CASE(a_rewritten_source_leaves_no_stale_hits) {
  BOOST_REQUIRE(search_json(home, "quokkafizz").size() >= 1u);
  // The file is rewritten in place with another word (its head changes: a new generation).
  RecallHome::plant(home.claude_file(), home.claude_file(), {{"quokkafizz", "wallabyfizz"}});
  Run r = home.helix("sweep");
  BOOST_REQUIRE(r.exit_code == 0);
  BOOST_TEST(r.out.find("1 rewritten") != std::string::npos);
  BOOST_TEST(search_json(home, "quokkafizz").empty());
  BOOST_TEST(sessions_of(search_json(home, "wallabyfizz")) ==
             std::set<std::string>{RecallHome::kClaude});
  check_index_matches_texts(home.store_db());  // the old generation's rows left exactly
}

BOOST_AUTO_TEST_CASE(the_index_keeps_no_copy_of_the_texts_and_matches_them_exactly) {
  {
    helix::Database db(home.store_db(), /*read_only=*/true);
    BOOST_TEST(count(db,
                     "SELECT COUNT(*) FROM sqlite_schema WHERE name = "
                     "'search_events_content'") == 0);
    BOOST_TEST(count(db, "SELECT COUNT(*) FROM search_event_texts") > 0);
  }
  check_index_matches_texts(home.store_db());
  {  // the check is real: a row deleted with other words than its text's is caught
    helix::Database db(home.store_db());
    db.exec(
        "INSERT INTO search_events (search_events, rowid, tool, body) SELECT 'delete', id, "
        "tool, body || ' quokkafizz' FROM search_event_texts WHERE body LIKE '%quokkafizz%' "
        "LIMIT 1");
  }
  BOOST_CHECK_THROW(check_index_matches_texts(home.store_db()), std::runtime_error);
}

BOOST_AUTO_TEST_CASE(an_event_whose_pack_is_gone_cannot_be_deleted_and_loses_nothing) {
  // The index cannot drop the event's row without the text: refuse, rather than leave its
  // words findable under a rowid a later event may take.
  helix::Database db(home.store_db());
  const std::string events =
      fmt::format("SELECT COUNT(*) FROM events WHERE session_uid = '{}'", RecallHome::kClaude);
  const int64_t before = count(db, events);
  try {
    helix::Transaction tx(db);
    db.exec(
        fmt::format("DELETE FROM payload_packs WHERE session_uid = '{0}'; "
                    "DELETE FROM events WHERE session_uid = '{0}'",
                    RecallHome::kClaude));
    BOOST_FAIL("the events were deleted without their texts");
  } catch (const std::runtime_error& e) {
    BOOST_TEST(std::string(e.what()).find("payload pack is gone") != std::string::npos, e.what());
  }
  BOOST_TEST(count(db, events) == before);
  check_index_matches_texts(home.store_db());
}

// The layout of schema version 7: FTS5 kept its own copy of each text and the events of
// stores older than version 3 waited in search_backlog (`indexed` false is what migration 3
// left), and digests had no coverage columns (version 9).
void make_old_search_layout(const std::filesystem::path& store_db, bool indexed) {
  helix::Database db(store_db);
  db.exec(fmt::format(R"sql(
    BEGIN;
    {} {} {}
    CREATE TEMP TABLE old_rows AS SELECT id, tool, body FROM search_event_texts;
    DROP TRIGGER search_events_forget;
    DROP TABLE search_events;
    DROP VIEW search_event_texts;
    CREATE VIRTUAL TABLE search_events USING fts5(
      tool, body, tokenize = 'unicode61 remove_diacritics 2');
    CREATE TRIGGER search_events_forget AFTER DELETE ON events BEGIN
      DELETE FROM search_events WHERE rowid = old.id;
    END;
    CREATE TABLE search_backlog (event_id INTEGER PRIMARY KEY);
    ALTER TABLE digests DROP COLUMN covered_seq;
    ALTER TABLE digests DROP COLUMN covered_events;
    ALTER TABLE digests DROP COLUMN covered_untimed;
    {}
    {}
    DROP TRIGGER usage_rollup_stale_insert;  -- and what version 10 added
    DROP TRIGGER usage_rollup_stale_delete;
    DROP TRIGGER usage_rollup_stale_update;
    DROP TABLE usage_rollup;
    DROP TABLE usage_rollup_stale;
    {}
    PRAGMA user_version = 7;
    COMMIT;)sql",
                      helix::test::kUndoSchema16, helix::test::kUndoSchema15,
                      helix::test::kUndoSchema14,
                      indexed ? "INSERT INTO search_events (rowid, tool, body) "
                                "SELECT id, tool, body FROM old_rows ORDER BY id;"
                              : "INSERT INTO search_backlog SELECT id FROM events;",
                      helix::test::kUndoSchema12, helix::test::kUndoSchema11));
}

void check_migrated(const RecallHome& home, const std::string& expected) {
  { helix::Store store(home.store_db()); }  // a writable open migrates
  helix::Database db(home.store_db(), /*read_only=*/true);
  BOOST_TEST(count(db, "PRAGMA user_version") == helix::kStoreSchemaVersion);
  BOOST_TEST(count(db, "PRAGMA freelist_count") == 0);  // the old copy's pages are given back
  BOOST_TEST(count(db,
                   "SELECT COUNT(*) FROM sqlite_schema WHERE name IN "
                   "('search_events_content', 'search_backlog')") == 0);
  check_index_matches_texts(home.store_db());
  BOOST_TEST(answers(home) == expected);
}

BOOST_AUTO_TEST_CASE(an_old_index_is_rebuilt_without_its_copy_and_searches_the_same) {
  const std::string expected = answers(home);
  BOOST_REQUIRE(expected.find("quokkafizz") != std::string::npos);
  make_old_search_layout(home.store_db(), /*indexed=*/true);
  BOOST_TEST(answers(home) == expected);  // read-only commands search the old layout as it is
  check_migrated(home, expected);
}

BOOST_AUTO_TEST_CASE(events_stored_before_the_index_existed_are_indexed_by_the_migration) {
  const std::string expected = answers(home);
  make_old_search_layout(home.store_db(), /*indexed=*/false);
  BOOST_REQUIRE(search_json(home, "hello").empty());
  check_migrated(home, expected);
}

BOOST_AUTO_TEST_CASE(a_session_whose_tier1_rows_are_dropped_stays_findable_by_its_digest) {
  helix::Database check(home.store_db(), /*read_only=*/true);
  BOOST_REQUIRE_MESSAGE(count(check, "SELECT COUNT(*) FROM digests WHERE session_uid = '" +
                                         std::string(RecallHome::kClaude) + "'") > 0,
                        "the sweep wrote no digest (is the session_digest plugin built?)");
  BOOST_REQUIRE(search_json(home, "'\"Permission is hereby granted\"'").size() >= 1u);
  const std::string fts_bytes =
      "SELECT SUM(pgsize) FROM dbstat WHERE name LIKE 'search\\_events%' ESCAPE '\\'";
  const std::string usage_rows =
      "SELECT COUNT(*) FROM usage WHERE session_uid = '" + std::string(RecallHome::kClaude) + "'";
  // The index's own bytes (its segments), and its pages: a small index may already sit in the
  // fewest pages FTS5 keeps, so pages can only not grow; its documents and bytes must drop.
  const std::string fts_documents = "SELECT COUNT(*) FROM search_events_docsize";
  const std::string fts_data = "SELECT SUM(length(block)) FROM search_events_data";
  const int64_t index_before = count(check, fts_bytes);
  const int64_t documents_before = count(check, fts_documents);
  const int64_t data_before = count(check, fts_data);
  const int64_t usage_before = count(check, usage_rows);
  BOOST_REQUIRE(usage_before > 0);
  // The real eviction: Tier 1 rows go, the index is rewritten without tombstones and the freed
  // pages go back to the file system; the digest and the usage ledger stay.
  evict_session(home, RecallHome::kClaude, 1767715200000);
  check_index_matches_texts(home.store_db());
  {
    helix::Database db(home.store_db(), /*read_only=*/true);
    BOOST_TEST(count(db, fts_bytes) <= index_before);  // compacted: no tombstones kept
    BOOST_TEST(count(db, fts_documents) < documents_before);
    BOOST_TEST(count(db, fts_data) < data_before);
    BOOST_TEST(count(db, usage_rows) == usage_before);
  }
  // The first prompt is in the digest: one Tier 2 hit for the session.
  const auto hits = search_json(home, "quokkafizz");
  BOOST_REQUIRE(hits.size() == 1u);
  BOOST_TEST(hits.at(0).at("session_uid").as_string() == RecallHome::kClaude);
  BOOST_REQUIRE(hits_of(hits.at(0)).size() == 1u);
  const auto& hit = hits_of(hits.at(0)).at(0);
  BOOST_TEST(hit.at("kind").as_string() == "digest");
  BOOST_TEST(hit.at("tier").as_int64() == 2);
  BOOST_TEST(std::string(hit.at("snippet").as_string()).find("quokkafizz") != std::string::npos);
  // A word only Tier 1 held (the LICENSE text the agent wrote) is gone with it.
  BOOST_TEST(search_json(home, "'\"Permission is hereby granted\"'").empty());
  // Sessions not evicted still answer from Tier 1 only, never twice.
  const auto hello = search_json(home, "hello");
  BOOST_REQUIRE(!hello.empty());
  for (const auto& s : hello)
    for (const auto& h : hits_of(s)) BOOST_TEST(h.at("kind").as_string() != "digest");
  BOOST_TEST(search_json(home, "quokkafizz --kind digest").size() == 1u);
  BOOST_TEST(search_json(home, "quokkafizz --kind user_msg").empty());
}

BOOST_AUTO_TEST_CASE(a_store_from_before_the_index_reads_without_titles_and_says_to_sweep) {
  {
    // A store as helix-host left it before schema version 3 (read-only commands never migrate).
    helix::Database db(home.store_db());
    db.exec(R"sql(
      DROP VIEW search_digest_rows;
      DROP TRIGGER search_digests_add; DROP TRIGGER search_digests_change;
      DROP TRIGGER search_digests_forget; DROP TRIGGER search_events_forget;
      DROP TABLE search_digests; DROP TABLE search_events; DROP VIEW search_event_texts;
      ALTER TABLE sessions DROP COLUMN prompt_title;)sql");
  }
  Run sessions = home.helix("sessions --json");
  BOOST_TEST(sessions.exit_code == 0);
  const json::value doc = json::parse(sessions.out);
  for (const auto& s : doc.as_array())
    if (s.at("session_uid").as_string() == RecallHome::kClaude)
      BOOST_TEST(s.at("title").is_null());  // no agent title, and none derived yet
  Run search = home.helix("search hello");
  BOOST_TEST(search.exit_code == 3);
  BOOST_TEST(search.err.find("predates full-text search; run 'helix-host sweep'") !=
             std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
