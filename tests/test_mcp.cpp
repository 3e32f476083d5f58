// The MCP server in process over a store swept from the fixtures of every flavor: JSON-RPC
// framing and its limits, argument schemas, the repository scope, and recall answering
// questions written from the fixtures' content with the passage that holds the answer, within
// the token budget. (tests/mcp drives the built binary with the official TypeScript client.)
#define BOOST_TEST_MODULE mcp
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <sstream>

#include "fixture_store.hpp"
#include "mcp/json_rpc.hpp"
#include "mcp/scope.hpp"
#include "mcp/server.hpp"
#include "mcp/tool_schema.hpp"
#include "mcp/tools.hpp"
#include "recall/token_budget.hpp"
#include "store/store.hpp"

namespace json = boost::json;
using namespace helix;
using helix::test::FixtureStore;

namespace {

// One in-process server session: requests in, the replies it wrote out.
class Client {
 public:
  explicit Client(const std::string& cwd, bool all_repos = false)
      : store_(FixtureStore::shared().db(), /*read_only=*/true) {
    mcp::ServerOptions o;
    o.all_repos = all_repos;
    o.cwd = cwd;
    o.primary_digester = "session_digest";
    o.version = "test";
    o.repo_of = [](const std::string& dir) {
      return std::filesystem::path(dir).filename().string();
    };
    o.now_ms = [] { return int64_t{1767225600000}; };  // 2026-01-01
    server_ = std::make_unique<mcp::Server>(store_, std::move(o), out_);
    request("initialize", {{"protocolVersion", mcp::kLatestProtocol},
                           {"capabilities", json::object()},
                           {"clientInfo", {{"name", "test"}, {"version", "1"}}}});
  }

  // Sends one line, returns the one reply it got.
  json::object send(const std::string& line) {
    const auto before = out_.str().size();
    server_->handle({line, 0});
    const std::string written = out_.str().substr(before);
    BOOST_REQUIRE_MESSAGE(std::count(written.begin(), written.end(), '\n') == 1,
                          "one reply per request: " << written);
    return json::parse(written).as_object();
  }
  json::object request(const std::string& method, json::object params) {
    return send(json::serialize(
        json::object{{"jsonrpc", "2.0"}, {"id", ++id_}, {"method", method}, {"params", params}}));
  }
  json::object tool(const std::string& name, json::object args) {
    auto reply = request("tools/call", {{"name", name}, {"arguments", std::move(args)}});
    BOOST_REQUIRE_MESSAGE(reply.contains("result"), json::serialize(reply));
    return reply["result"].as_object();
  }

 private:
  Store store_;
  std::ostringstream out_;
  std::unique_ptr<mcp::Server> server_;
  int64_t id_ = 0;
};

std::string text_of(const json::object& result) {
  return std::string(result.at("content").as_array()[0].as_object().at("text").as_string());
}

// A question written from a fixture's content, the session that answered it, and words of the
// passage that holds the answer.
struct Question {
  const char* question;
  const char* session;
  const char* passage_words;
};

// Each asked in the words a user would use, not copied from the transcript.
const Question kQuestions[] = {
    {"which license did we add to the CLI and who holds the copyright?",
     "claude:cf564e14-9b07-42ad-8d9a-4faa1b79a0ed", "MIT"},
    {"how did we stop markdownlint wrapping URLs in angle brackets in MDX posts?",
     "claude:5ed31c36-bca8-40fd-8d24-f1a1f0af7901", "MD034"},
    {"what should the claude code hook handler do when opening the repository fails?",
     "claude:198393f2-22db-477b-ac77-1825bea883ae", "repository"},
    {"where does FirstPrompt get filled in the session state?",
     "claude:531e0007-8fdd-4e98-a526-3f675a2b8f16", "FirstPrompt"},
    {"is there a SessionEnd hook we are not using yet?",
     "claude:062a8bdd-4322-4ffa-bc38-3e8b8bfb5a56", "SessionEnd"},
    {"was FetchAndCheckoutRemoteBranch duplicated somewhere?",
     "claude:86cc3044-7515-43f1-9c25-1444738c64c9", "FetchAndCheckoutRemoteBranch"},
    {"what did we change to fix the Azure OpenAI 401 error?",
     "codex:05997ac9-0e06-4251-8576-cc16266d3022", "Azure"},
    {"which patch failed after creating hello.txt?", "codex:01a2029b-bd0f-7b52-b27b-ba8d4ea361c8",
     "patch failed"},
    {"what is in the scripts folder?", "codex:019b7fa0-0000-7000-8000-00000000f0c1",
     "release helpers"},
    {"how did the ty type checker complain about the pytest import?",
     "claude:326189cf-5676-4237-8cde-1ce80aae4a9f", "pytest"},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(framing)

BOOST_AUTO_TEST_CASE(an_oversized_line_is_measured_and_dropped_without_holding_it) {
  const std::string big(5'000'000, 'x');
  std::istringstream in("{\"a\":1}\n" + big + "\n{\"b\":2}\r\nlast");
  mcp::LineReader reader(in, 1000);
  BOOST_TEST(reader.next()->text == "{\"a\":1}");
  const auto dropped = reader.next();
  BOOST_TEST(dropped->oversized_bytes == big.size());
  BOOST_TEST(dropped->text.capacity() < 2000u);  // never grew to the line's size
  BOOST_TEST(reader.next()->text == "{\"b\":2}");
  BOOST_TEST(reader.next()->text == "last");
  BOOST_TEST(!reader.next().has_value());
}

BOOST_AUTO_TEST_CASE(malformed_messages_name_what_is_wrong_and_keep_the_id_they_could_read) {
  json::value id;
  auto code_of = [&](const std::string& line) {
    try {
      mcp::parse_message(line, id);
    } catch (const mcp::RpcFailure& e) {
      return e.code;
    }
    return 0;
  };
  BOOST_TEST(code_of("{\"jsonrpc\":\"2.0\",") == mcp::kParseError);
  BOOST_TEST(id.is_null());
  BOOST_TEST(code_of("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]") ==
             mcp::kInvalidRequest);
  BOOST_TEST(code_of("{\"jsonrpc\":\"1.0\",\"id\":7,\"method\":\"ping\"}") == mcp::kInvalidRequest);
  BOOST_TEST(id.as_int64() == 7);
  BOOST_TEST(code_of("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"x\",\"params\":[1]}") ==
             mcp::kInvalidRequest);
  BOOST_TEST(code_of("{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"ping\"}") ==
             mcp::kInvalidRequest);
  BOOST_TEST(code_of("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}") == 0);
}

BOOST_AUTO_TEST_CASE(errors_without_a_readable_id_leave_it_out) {
  const auto m = mcp::error_message(nullptr, mcp::kParseError, "bad");
  BOOST_TEST(!m.contains("id"));
  BOOST_TEST(mcp::error_message(3, mcp::kParseError, "bad").at("id").as_int64() == 3);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(arguments)

BOOST_AUTO_TEST_CASE(schemas_and_checks_come_from_one_declaration) {
  const auto& specs = mcp::tool_specs();
  const auto& get = *std::find_if(specs.begin(), specs.end(),
                                  [](const auto& t) { return t.name == "get_session"; });
  const auto schema = mcp::input_schema(get);
  BOOST_TEST(schema.at("required").as_array().size() == 1u);
  BOOST_TEST(schema.at("additionalProperties").as_bool() == false);
  auto check = [&](const std::string& args) -> std::string {
    const json::value v = json::parse(args);
    try {
      mcp::validate_arguments(get, &v);
    } catch (const mcp::RpcFailure& e) {
      BOOST_TEST(e.code == mcp::kInvalidParams);
      return e.what();
    }
    return "";
  };
  BOOST_TEST(check(R"({"id": "x"})") == "");
  BOOST_TEST(check(R"({"id": "x", "max_tokens": 500.0})") == "");
  BOOST_TEST(check(R"({})").find("'id' is required") != std::string::npos);
  BOOST_TEST(check(R"({"id": 5})").find("'id' must be a string") != std::string::npos);
  BOOST_TEST(check(R"({"id": "x", "part": "all"})").find("one of summary, digest, turns") !=
             std::string::npos);
  BOOST_TEST(check(R"({"id": "x", "max_tokens": 10})").find("at least 200") != std::string::npos);
  BOOST_TEST(check(R"({"id": "x", "max_tokens": 1.5})").find("integer") != std::string::npos);
  BOOST_TEST(check(R"({"id": "x", "colour": "red"})").find("unknown argument 'colour'") !=
             std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(scope)

BOOST_AUTO_TEST_CASE(file_uris_become_paths) {
  BOOST_TEST(mcp::file_uri_path("file:///home/me/my%20repo") == "/home/me/my repo");
  BOOST_TEST(mcp::file_uri_path("file://localhost/srv/x?y") == "/srv/x");
  BOOST_TEST(mcp::file_uri_path("file://elsewhere/srv/x") == "");
  BOOST_TEST(mcp::file_uri_path("https://example.com/") == "");
}

BOOST_AUTO_TEST_CASE(a_scope_allows_its_repositories_only) {
  const auto s = mcp::Scope::of({"cli"}, {"docs", "cli"});
  BOOST_TEST(s.allows("cli"));
  BOOST_TEST(s.allows("docs"));
  BOOST_TEST(!s.allows("other"));
  BOOST_TEST(!s.allows(""));  // a session of no known repository belongs to nobody's scope
  BOOST_TEST(s.repos().size() == 2u);
  BOOST_TEST(s.home() == "cli");
  BOOST_TEST(mcp::Scope::everything().allows(""));
}

BOOST_AUTO_TEST_CASE(nothing_outside_the_scope_comes_back) {
  Client c(FixtureStore::shared().repo_dir("cli").string());
  for (const auto& [tool, args] : std::vector<std::pair<std::string, json::object>>{
           {"get_session", {{"id", "codex:01a2029b"}}},
           {"resume_command", {{"id", "01a2029b-bd0f"}}},
           {"list_sessions", {{"repo", "mockworkA"}}},
           {"search_sessions", {{"query", "hello"}, {"repo", "mockworkA"}}},
           {"session_usage", {{"repo", "proj"}}},
           {"recall", {{"question", "hello"}, {"repo", "proj"}}}}) {
    const auto result = c.tool(tool, args);
    BOOST_TEST(result.at("isError").as_bool(), tool);
    BOOST_TEST(!result.contains("structuredContent"), tool);
    BOOST_TEST(
        text_of(result).find("outside this server's scope (repository cli)") != std::string::npos,
        text_of(result));
    BOOST_TEST(text_of(result).find("hello.txt") == std::string::npos, tool);
  }
  for (const auto& [tool, args] : std::vector<std::pair<std::string, json::object>>{
           {"search_sessions", {{"query", "hello.txt"}}},
           {"recall", {{"question", "what does the directory contain?"}}},
           {"list_sessions", {{"limit", 200}}}}) {
    const std::string text = text_of(c.tool(tool, args));
    BOOST_TEST(text.find("codex:") == std::string::npos, tool << ": " << text.substr(0, 300));
    BOOST_TEST(text.find("grok:") == std::string::npos, tool);
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(recall)

BOOST_AUTO_TEST_CASE(nine_of_ten_questions_find_their_passage_within_the_budget) {
  Client c("/", /*all_repos=*/true);
  constexpr int64_t kBudget = 1000;
  int found = 0;
  for (const auto& q : kQuestions) {
    const auto result = c.tool("recall", {{"question", q.question}, {"max_tokens", kBudget}});
    const auto& answer = result.at("structuredContent").as_object();
    BOOST_TEST(json_tokens(answer) <= kBudget, q.question);
    BOOST_TEST(answer.at("budget").as_object().at("used_tokens").as_int64() <= kBudget);
    int rank = 0, at = 0;
    for (const auto& p : answer.at("passages").as_array()) {
      ++at;
      const auto& o = p.as_object();
      if (o.at("session_uid").as_string() == q.session &&
          std::string(o.at("text").as_string()).find(q.passage_words) != std::string::npos) {
        rank = at;
        break;
      }
    }
    BOOST_TEST_MESSAGE((rank ? "found at " + std::to_string(rank) : std::string("MISSED"))
                       << ": " << q.question);
    found += rank > 0;
  }
  BOOST_TEST(found >= 9, found << " of 10 questions found their passage");
}

BOOST_AUTO_TEST_CASE(the_budget_cuts_passages_and_says_how_many) {
  Client c("/", true);
  const auto wide = c.tool("recall", {{"question", "hello.txt directory"}, {"max_tokens", 20000}});
  const auto narrow = c.tool("recall", {{"question", "hello.txt directory"}, {"max_tokens", 200}});
  const auto& w = wide.at("structuredContent").as_object();
  const auto& n = narrow.at("structuredContent").as_object();
  BOOST_TEST(json_tokens(n) <= 200);
  BOOST_TEST(n.at("passages").as_array().size() < w.at("passages").as_array().size());
  BOOST_TEST(n.at("left_out").as_object().at("passages").as_int64() ==
             static_cast<int64_t>(w.at("passages").as_array().size() -
                                  n.at("passages").as_array().size()));
}

BOOST_AUTO_TEST_CASE(a_question_without_words_answers_nothing_and_says_why) {
  Client c("/", true);
  const auto r = c.tool("recall", {{"question", "what is it?"}});
  const auto& o = r.at("structuredContent").as_object();
  BOOST_TEST(o.at("passages").as_array().empty());
  BOOST_TEST(std::string(o.at("left_out").as_object().at("note").as_string()).find("no words") !=
             std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(protocol)

BOOST_AUTO_TEST_CASE(the_server_keeps_serving_after_every_kind_of_mistake) {
  Client c("/", true);
  for (const std::string bad :
       {"{not json", "[]",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
        "\"params\":{\"name\":\"nope\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
        "\"recall\",\"arguments\":{\"question\":[1]}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"no/such\"}"}) {
    const auto reply = c.send(bad);
    BOOST_TEST(reply.contains("error"), bad);
    const auto pong = c.request("ping", {});
    BOOST_TEST(pong.at("result").as_object().empty());
  }
}

BOOST_AUTO_TEST_CASE(tool_results_carry_their_json_as_text_too) {
  Client c("/", true);
  const auto r = c.tool("list_sessions", {{"limit", 3}});
  BOOST_TEST(json::parse(text_of(r)) == r.at("structuredContent"));
  BOOST_TEST(text_of(r).find("E-") == std::string::npos);  // plain decimals for readers
}

BOOST_AUTO_TEST_SUITE_END()
