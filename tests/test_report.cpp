// The report module: SVG charts drawn from figures (a shape per value, each naming its value),
// and the dashboard of a store swept from the fixtures of every flavor, whose figures must
// equal what `sessions` and `usage` print. (tests/html opens it in Chromium and validates it.)
#define BOOST_TEST_MODULE report
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "fixture_store.hpp"
#include "report/dashboard.hpp"
#include "report/svg_chart.hpp"
#include "store/store.hpp"

namespace json = boost::json;
using namespace helix;
using helix::test::FixtureStore;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

json::value cli_json(const std::string& args) {
  const auto r = FixtureStore::shared().helix(args);
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return json::parse(r.out);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(charts)

BOOST_AUTO_TEST_CASE(stacked_bars_draw_one_shape_per_value_with_its_figure) {
  StackedBars chart{{"2026-01-01", "2026-01-02", "2026-01-03"},
                    {{"claude", {1.5, 0, 2}}, {"codex <x>", {0.25, 3, 0}}},
                    "$"};
  const std::string svg = svg_stacked_bars(chart, "Cost per day");
  BOOST_TEST(count(svg, "<rect") == 4u);  // the zero values draw nothing
  BOOST_TEST(svg.find("<title>2026-01-02 · codex &lt;x&gt;: $3.00</title>") != std::string::npos);
  BOOST_TEST(svg.find("aria-label=\"Cost per day\"") != std::string::npos);
  BOOST_TEST(svg.find(">01-03<") != std::string::npos);  // days labelled by month and day
  BOOST_TEST(svg.find("<script") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_empty_range_says_so) {
  const std::string svg = svg_stacked_bars(StackedBars{{}, {}, "tokens"}, "Tokens");
  BOOST_TEST(svg.find("no data in this range") != std::string::npos);
  BOOST_TEST(svg_labeled_bars(LabeledBars{{}, "calls"}, "Tools").find("none in this range") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(labeled_bars_are_as_long_as_their_values) {
  const std::string svg =
      svg_labeled_bars(LabeledBars{{{"Bash", 30}, {"Read", 15}}, "calls"}, "Most called tools");
  BOOST_TEST(count(svg, "<rect") == 2u);
  BOOST_TEST(svg.find("<title>Bash: 30 calls</title>") != std::string::npos);
  const auto width = [&](const std::string& label) {
    const auto at = svg.find("<title>" + label);
    const auto w = svg.rfind("width=\"", at);
    return std::stod(svg.substr(w + 7));
  };
  BOOST_TEST(width("Bash") == 2 * width("Read"), boost::test_tools::tolerance(0.01));
}

BOOST_AUTO_TEST_CASE(figures_are_short) {
  BOOST_TEST(short_figure(1234567, "tokens") == "1.2M tokens");
  BOOST_TEST(short_figure(2.5, "$") == "$2.50");
  BOOST_TEST(short_figure(999, "") == "999");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(dashboard)

BOOST_AUTO_TEST_CASE(the_figures_are_the_stores) {
  Store store(FixtureStore::shared().db(), /*read_only=*/true);
  const Dashboard d = gather_dashboard(store, "2020-01-01", "2030-12-31", "session_digest");
  std::size_t timed = 0;
  const auto sessions = cli_json("sessions --json");
  for (const auto& s : sessions.as_array()) timed += !s.as_object().at("started_at").is_null();
  BOOST_TEST(d.sessions.size() == timed);
  for (std::size_t i = 1; i < d.sessions.size(); ++i)
    BOOST_TEST(d.sessions[i - 1].session.started_at_ms >= d.sessions[i].session.started_at_ms);

  const auto usage_doc = cli_json("usage --by day --json");
  const auto& usage = usage_doc.as_object().at("totals").as_object();
  int64_t input = 0, output = 0;
  double cost = 0;
  for (const auto& c : d.usage) {
    input += c.totals.input_tokens;
    output += c.totals.output_tokens;
    cost += c.totals.cost_usd;
  }
  BOOST_TEST(input == usage.at("input_tokens").as_int64());
  BOOST_TEST(output == usage.at("output_tokens").as_int64());
  // usage --json rounds costs to 1e-6.
  BOOST_TEST(cost == usage.at("cost_usd").to_number<double>(), boost::test_tools::tolerance(1e-7));
  BOOST_TEST(!d.tools.empty());
  BOOST_TEST(!d.errors.empty());
  for (std::size_t i = 1; i < d.errors.size(); ++i)
    BOOST_TEST(d.errors[i - 1].count >= d.errors[i].count);
}

BOOST_AUTO_TEST_CASE(a_range_keeps_its_days_and_sessions) {
  Store store(FixtureStore::shared().db(), /*read_only=*/true);
  const Dashboard d = gather_dashboard(store, "2026-11-01", "2026-11-30", "session_digest");
  BOOST_TEST(d.sessions.size() == 3u);  // the hermetic Codex and Grok runs of 2026-11-22
  for (const auto& c : d.usage) BOOST_TEST((c.day >= "2026-11-01" && c.day <= "2026-11-30"));
}

BOOST_AUTO_TEST_CASE(the_page_links_every_session_and_draws_its_charts) {
  Store store(FixtureStore::shared().db(), /*read_only=*/true);
  Dashboard d = gather_dashboard(store, "2026-01-01", "2026-02-28", "session_digest");
  for (auto& r : d.sessions) r.page = "sessions/" + r.session.uid + ".html";
  const std::string page = html_dashboard(d);
  BOOST_TEST(count(page, "<svg class=\"chart") == 7u);
  BOOST_TEST(count(page, "<a href=\"sessions/") == d.sessions.size());
  BOOST_TEST(page.find("Cost per day") != std::string::npos);  // two months: by day
  for (const char* outside : {"<link", "src=", "@import", "url("})
    BOOST_TEST(page.find(outside) == std::string::npos, outside);
}

BOOST_AUTO_TEST_SUITE_END()
