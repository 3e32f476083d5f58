// The recall module's reading of sessions, on a store swept from the fixtures of every flavor:
// the conversation structure (every shown event once, subagents under their calls, compactions
// marked), views that stay within their token budget and page through a whole session, the
// HTML transcript's escaping and redaction markers, and JSON written for readers.
#define BOOST_TEST_MODULE recall
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <set>

#include "fixture_store.hpp"
#include "recall/conversation.hpp"
#include "recall/html_page.hpp"
#include "recall/html_transcript.hpp"
#include "recall/passages.hpp"
#include "recall/session_view.hpp"
#include "recall/token_budget.hpp"
#include "store/store.hpp"

namespace json = boost::json;
using namespace helix;
using helix::test::FixtureStore;

namespace {

constexpr const char* kSubagents = "claude:29ccd257-68b1-427f-ae5f-6524b7cb6f20";
constexpr const char* kCompaction = "claude:198393f2-22db-477b-ac77-1825bea883ae";
constexpr const char* kLong = "codex:019c8a4c-ed82-79a1-aa28-7738fc5ab61a";

Store& store() {
  static Store s(FixtureStore::shared().db(), /*read_only=*/true);
  return s;
}

std::vector<SessionRow> all_sessions() { return store().sessions(SessionFilter{}); }

// Kinds a reader is shown; the rest is bookkeeping.
bool shown(const EventRow& e) {
  static const std::set<std::string> kinds = {
      "user_msg", "assistant_msg", "thinking", "tool_call",          "test_run",
      "edit",     "tool_result",   "error",    "human_intervention", "decision"};
  return (kinds.count(e.kind) && (!e.text.empty() || !e.summary.empty())) ||
         is_compaction_marker(e);
}

std::vector<std::size_t> flattened(const Conversation& c) {
  std::vector<std::size_t> out;
  for (const auto& t : c.turns)
    for (const auto& fe : flatten_turn(c, t)) out.push_back(fe.event);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(conversation)

BOOST_AUTO_TEST_CASE(every_shown_event_of_every_session_appears_once) {
  std::size_t sessions = 0;
  for (const auto& s : all_sessions()) {
    const auto events = store().events(s.uid, true);
    const Conversation c = build_conversation(events);
    const auto order = flattened(c);
    const std::set<std::size_t> once(order.begin(), order.end());
    BOOST_TEST(once.size() == order.size(), s.uid << ": an event shown twice");
    for (std::size_t i = 0; i < events.size(); ++i) {
      // A compaction's summary is shown with its marker, whatever its kind.
      if (!shown(events[i])) continue;
      BOOST_TEST(once.count(i) == 1u,
                 s.uid << ": event " << events[i].seq << " (" << events[i].kind << ") is missing");
    }
    ++sessions;
  }
  BOOST_TEST(sessions > 25u);
}

BOOST_AUTO_TEST_CASE(turns_begin_at_the_prompts_of_the_main_conversation) {
  const auto events = store().events(kCompaction, true);
  const Conversation c = build_conversation(events);
  BOOST_TEST_REQUIRE(c.turns.size() > 1u);
  for (std::size_t t = 1; t < c.turns.size(); ++t) {
    const EventRow& first = events[c.turns[t].steps.front().event];
    BOOST_TEST(first.kind == "user_msg");
    BOOST_TEST(!first.is_sidechain);
  }
}

BOOST_AUTO_TEST_CASE(a_subagent_sits_under_the_task_call_that_started_it) {
  const auto events = store().events(kSubagents, true);
  const Conversation c = build_conversation(events);
  std::size_t linked = 0;
  for (const auto& t : c.turns)
    for (const auto& step : t.steps)
      if (step.kind == StepKind::tool_call && !step.threads.empty()) {
        BOOST_TEST(events[step.event].tool == "Task");
        const Thread& th = c.threads[step.threads.front()];
        BOOST_TEST(th.label == "subagent a2271d1");
        BOOST_TEST(events[th.steps.front().event].is_sidechain);
        ++linked;
      }
  BOOST_TEST(linked == 1u);
  // Flattened, the subagent's events come between the call and its result, one level down.
  const auto flat = flatten_turn(c, c.turns.front());
  std::size_t call = SIZE_MAX, result = SIZE_MAX, deeper = 0;
  for (std::size_t i = 0; i < flat.size(); ++i) {
    const EventRow& e = events[flat[i].event];
    if (e.tool == "Task" && e.kind == "tool_call") call = i;
    if (e.tool == "Task" && e.kind == "tool_result") result = i;
    if (flat[i].depth == 1) {
      ++deeper;
      BOOST_TEST(i > call);
      BOOST_TEST(e.is_sidechain);
    }
  }
  BOOST_TEST(deeper > 20u);
  BOOST_TEST(result > call);
  BOOST_TEST(flat[result - 1].depth == 1);
}

BOOST_AUTO_TEST_CASE(a_compaction_is_a_step_with_the_summary_it_left) {
  const auto events = store().events(kCompaction, true);
  const Conversation c = build_conversation(events);
  std::size_t compactions = 0;
  for (const auto& t : c.turns)
    for (const auto& step : t.steps)
      if (step.kind == StepKind::compaction) {
        ++compactions;
        BOOST_TEST_REQUIRE(step.summary != SIZE_MAX);
        BOOST_TEST(events[step.summary].text.find("continued from a previous conversation") !=
                   std::string::npos);
      }
  BOOST_TEST(compactions == 1u);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(views)

BOOST_AUTO_TEST_CASE(every_view_of_every_session_fits_its_budget) {
  const auto costs = session_costs(store());
  for (const auto& s : all_sessions())
    for (int64_t budget : {200, 700, 4000}) {
      ViewRequest r;
      r.primary_digester = "session_digest";
      r.max_tokens = budget;
      for (const auto& view :
           {summary_view(store(), s, costs.count(s.uid) ? costs.at(s.uid) : 0, r),
            digest_view(store(), s, 0, r), turns_view(store(), s, 0, r)}) {
        BOOST_TEST(json_tokens(view) <= budget, s.uid << " " << view.at("part") << " at " << budget
                                                      << ": " << json_tokens(view));
        BOOST_TEST(view.at("budget").as_object().at("used_tokens").as_int64() == json_tokens(view));
      }
    }
}

BOOST_AUTO_TEST_CASE(following_next_reads_every_event_of_a_session_once) {
  const auto session = *store().session(kLong);
  ViewRequest whole;
  whole.max_tokens = 1000000;
  std::vector<int64_t> all;
  const auto everything = turns_view(store(), session, 0, whole);
  for (const auto& t : everything.at("turns").as_array())
    for (const auto& e : t.as_object().at("events").as_array())
      all.push_back(e.as_object().at("seq").as_int64());
  BOOST_TEST(all.size() > 100u);

  ViewRequest page;
  page.max_tokens = 500;
  std::vector<int64_t> paged;
  int pages = 0;
  for (;; ++pages) {
    BOOST_TEST_REQUIRE(pages < 1000);
    const auto view = turns_view(store(), session, 0, page);
    for (const auto& t : view.at("turns").as_array())
      for (const auto& e : t.as_object().at("events").as_array())
        paged.push_back(e.as_object().at("seq").as_int64());
    if (view.at("next").is_null()) break;
    const auto& next = view.at("next").as_object();
    BOOST_TEST(!view.at("left_out").as_array().empty());
    page.from_turn = next.at("from_turn").as_int64();
    page.from_event = next.contains("from_event") ? next.at("from_event").as_int64() : 0;
  }
  BOOST_TEST(pages > 5);
  BOOST_TEST(paged == all);
}

BOOST_AUTO_TEST_CASE(a_turn_window_returns_those_turns_and_points_past_them) {
  const auto session = *store().session(kCompaction);
  ViewRequest r;
  r.max_tokens = 100000;
  r.from_turn = 2;
  r.turn_count = 1;
  const auto view = turns_view(store(), session, 0, r);
  BOOST_TEST(view.at("turns").as_array().size() == 1u);
  BOOST_TEST(view.at("turns").as_array()[0].as_object().at("turn").as_int64() == 2);
  BOOST_TEST(view.at("next").as_object().at("from_turn").as_int64() == 3);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(budget)

BOOST_AUTO_TEST_CASE(packing_keeps_the_longest_prefix_that_fits_after_finishing) {
  std::vector<json::value> items;
  for (int i = 0; i < 50; ++i)
    items.emplace_back(std::string(100, static_cast<char>('a' + i % 26)));
  json::object envelope{{"head", "x"}};
  const auto kept = pack_within_budget(
      envelope, "items", items, 300,
      [](json::object& o, std::size_t n) { o["left"] = static_cast<int64_t>(50 - n); });
  BOOST_TEST(json_tokens(envelope) <= 300);
  BOOST_TEST(kept > 5u);
  BOOST_TEST(envelope.at("left").as_int64() == static_cast<int64_t>(50 - kept));
  // One more would not have fitted.
  json::object more = envelope;
  more["items"].as_array().push_back(items[kept]);
  BOOST_TEST(json_tokens(more) > 300);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(passages)

BOOST_AUTO_TEST_CASE(questions_lose_their_stop_words) {
  BOOST_TEST((question_terms("How did we fix the Azure 401 error, again?") ==
              std::vector<std::string>{"fix", "azure", "401", "error"}));
  BOOST_TEST(question_terms("what is it?").empty());
}

BOOST_AUTO_TEST_CASE(the_asking_repository_ranks_first_among_equals) {
  // The same words in two repositories: the home repository's passage first, either way round.
  for (const char* home : {"codemie-code", "mockworkA"}) {
    RecallQuery q;
    q.question = "what is current repository about";
    q.repos = {"codemie-code", "mockworkA"};
    q.home_repo = home;
    q.now_ms = 1767225600000;
    const auto answer = recall_passages(store(), q);
    BOOST_TEST_REQUIRE(!answer.passages.empty());
    if (std::string(home) == "codemie-code") BOOST_TEST(answer.passages.front().repo == home);
    for (const auto& p : answer.passages)
      BOOST_TEST((p.repo == "codemie-code" || p.repo == "mockworkA"));
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(html)

BOOST_AUTO_TEST_CASE(text_is_escaped_and_redactions_are_marked) {
  BOOST_TEST(html_escape("<script>\"&'") == "&lt;script&gt;&quot;&amp;&#39;");
  BOOST_TEST(html_text("key [REDACTED:aws-access-key-id] <b>") ==
             "key <mark class=\"redacted\" title=\"a secret was removed here (rule "
             "aws-access-key-id)\">[REDACTED:aws-access-key-id]</mark> &lt;b&gt;");
  BOOST_TEST(session_page_name("claude:ab/c d") == "claude_ab_c_d.html");
}

BOOST_AUTO_TEST_CASE(a_transcript_page_is_self_contained) {
  const auto session = *store().session(kSubagents);
  const std::string page = html_transcript(session, store().events(kSubagents, true), 0.15);
  BOOST_TEST(page.find("<!DOCTYPE html>") == 0u);
  for (const char* outside : {"<link", "src=", "@import", "url(", "<script"})
    BOOST_TEST(page.find(outside) == std::string::npos, outside);
  BOOST_TEST(page.find("<details class=\"tool\"") != std::string::npos);
  BOOST_TEST(page.find("class=\"subagent\"") != std::string::npos);
  BOOST_TEST(page.find("$0.1500") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
