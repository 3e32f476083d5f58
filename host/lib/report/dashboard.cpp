// The usage dashboard (see dashboard.hpp).
#include "report/dashboard.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <map>
#include <set>

#include "base/text.hpp"
#include "recall/html_page.hpp"
#include "recall/session_json.hpp"
#include "recall/session_view.hpp"
#include "report/svg_chart.hpp"

namespace helix {
namespace {

namespace chr = std::chrono;
constexpr int kDailyUpToDays = 62;  // longer ranges are charted by month
constexpr std::size_t kTopSeries = 7, kTopTools = 15, kTopErrors = 15, kTopRepos = 15;
constexpr std::size_t kSampleChars = 160, kTitleChars = 90;

chr::sys_days parse_day(const std::string& day) {
  return chr::sys_days{chr::year{std::stoi(day.substr(0, 4))} /
                       chr::month{static_cast<unsigned>(std::stoi(day.substr(5, 2)))} /
                       chr::day{static_cast<unsigned>(std::stoi(day.substr(8, 2)))}};
}
std::string format_day(chr::sys_days d) {
  const chr::year_month_day ymd{d};
  return fmt::format("{:04}-{:02}-{:02}", static_cast<int>(ymd.year()),
                     static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
}
int64_t day_start_ms(const std::string& day) {
  return chr::duration_cast<chr::milliseconds>(parse_day(day).time_since_epoch()).count();
}

// The chart's categories: every day of the range, or every month of a long one.
struct Buckets {
  bool monthly = false;
  std::vector<std::string> keys;
  std::string of(const std::string& day) const { return monthly ? day.substr(0, 7) : day; }
  std::size_t index(const std::string& day) const {
    return static_cast<std::size_t>(std::lower_bound(keys.begin(), keys.end(), of(day)) -
                                    keys.begin());
  }
};

Buckets buckets(const std::string& since, const std::string& until) {
  Buckets b;
  const auto first = parse_day(since), last = parse_day(until);
  b.monthly = (last - first).count() >= kDailyUpToDays;
  for (auto d = first; d <= last; d += chr::days{1}) {
    const std::string key = b.of(format_day(d));
    if (b.keys.empty() || b.keys.back() != key) b.keys.push_back(key);
  }
  return b;
}

int64_t all_tokens(const UsageLine& l) {
  return l.input_tokens + l.output_tokens + l.cache_read_tokens + l.cache_creation_tokens;
}

// Per bucket and series (flavor or model), the biggest series first and the rest as "other".
StackedBars stack(const Dashboard& d, const Buckets& b, bool by_model, bool cost) {
  std::map<std::string, std::vector<double>> values;
  std::map<std::string, double> totals;
  for (const auto& c : d.usage) {
    std::string name = by_model ? (c.model.empty() ? "(no model named)" : c.model) : c.flavor;
    const double v = cost ? c.totals.cost_usd : static_cast<double>(all_tokens(c.totals));
    auto& row = values[name];
    row.resize(b.keys.size(), 0);
    if (const std::size_t i = b.index(c.day); i < row.size()) row[i] += v;
    totals[name] += v;
  }
  std::vector<std::pair<double, std::string>> order;
  order.reserve(totals.size());
  for (const auto& [name, total] : totals) order.emplace_back(-total, name);
  std::sort(order.begin(), order.end());
  StackedBars chart{b.keys, {}, cost ? "$" : "tokens"};
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto& name = order[i].second;
    if (i < kTopSeries || order.size() == kTopSeries + 1) {
      chart.series.push_back({name, values[name]});
      continue;
    }
    if (chart.series.size() == kTopSeries)
      chart.series.push_back({"other", std::vector<double>(b.keys.size(), 0)});
    for (std::size_t k = 0; k < b.keys.size(); ++k)
      chart.series.back().values[k] += values[name][k];
  }
  return chart;
}

std::string legend(const StackedBars& chart) {
  std::string out = "<ul class=\"legend\">";
  for (std::size_t i = 0; i < chart.series.size(); ++i)
    out += fmt::format("<li><span class=\"swatch\" style=\"color:{}\">&#9632;</span>{}</li>",
                       series_colour(i), html_escape(chart.series[i].name));
  return out + "</ul>";
}

std::string figure(const std::string& svg, const std::string& caption,
                   const std::string& extra = "") {
  return fmt::format("<figure>{}{}<figcaption>{}</figcaption></figure>\n", svg, extra,
                     html_escape(caption));
}

std::string card(const std::string& what, const std::string& value) {
  return fmt::format(
      "<div class=\"card\"><div class=\"value\">{}</div><div class=\"what\">{}"
      "</div></div>",
      html_escape(value), html_escape(what));
}

void read_digest(const std::string& json, std::map<std::string, ErrorGroup>& errors,
                 std::map<std::string, int64_t>& tools) {
  boost::system::error_code ec;
  const auto v = boost::json::parse(json, ec);
  if (ec || !v.is_object()) return;
  const auto& o = v.as_object();
  if (const auto* h = o.if_contains("tool_histogram"); h && h->is_object())
    for (const auto& [tool, n] : h->as_object())
      if (n.is_int64()) tools[std::string(tool)] += n.as_int64();
  if (const auto* list = o.if_contains("error_snippets"); list && list->is_array())
    for (const auto& e : list->as_array()) {
      if (!e.is_object()) continue;
      const auto& eo = e.as_object();
      const auto* fp = eo.if_contains("fingerprint");
      if (!fp || !fp->is_string()) continue;
      auto& g = errors[std::string(fp->as_string())];
      g.fingerprint = fp->as_string();
      if (const auto* s = eo.if_contains("sample"); s && s->is_string() && g.sample.empty())
        g.sample = s->as_string();
      if (const auto* t = eo.if_contains("tool"); t && t->is_string() && g.tool.empty())
        g.tool = t->as_string();
      const auto* n = eo.if_contains("count");
      g.count += n && n->is_int64() ? n->as_int64() : 1;
      g.sessions += 1;
    }
}

std::string session_rows(const Dashboard& d) {
  std::string rows;
  for (const auto& r : d.sessions) {
    const auto& s = r.session;
    const std::string title = one_line(s.title.empty() ? s.uid : s.title, kTitleChars);
    const std::string link = r.page.empty() ? html_text(title)
                                            : fmt::format("<a href=\"{}\">{}</a>",
                                                          html_escape(r.page), html_text(title));
    const int64_t tokens = s.usage.input_tokens + s.usage.output_tokens +
                           s.usage.cache_read_tokens + s.usage.cache_creation_tokens;
    rows += fmt::format(
        "<tr><td data-value=\"{}\">{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td class=\"num\" data-value=\"{}\">{}</td><td class=\"num\" data-value=\"{}\">{}</td>"
        "<td class=\"num\" data-value=\"{:.6f}\">${:.2f}</td><td>{}</td></tr>\n",
        html_escape(iso8601(s.started_at_ms)), html_escape(iso8601(s.started_at_ms).substr(0, 16)),
        link, html_escape(s.flavor), html_text(s.repo.empty() ? "unknown" : s.repo), s.turns,
        thousands(s.turns), tokens, thousands(tokens), r.cost_usd, r.cost_usd,
        html_escape(s.outcome.empty() ? "unknown" : s.outcome));
  }
  return rows;
}

constexpr std::string_view kSortScript = R"js(
document.querySelectorAll('table[data-sortable]').forEach(function (table) {
  var headers = table.tHead.rows[0].cells;
  Array.prototype.forEach.call(headers, function (th, column) {
    var button = th.querySelector('button');
    if (!button) return;
    button.addEventListener('click', function () {
      var ascending = th.getAttribute('aria-sort') !== 'ascending';
      Array.prototype.forEach.call(headers, function (h) { h.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
      var numeric = th.getAttribute('data-sort') === 'number';
      var value = function (row) {
        var cell = row.cells[column];
        return cell.hasAttribute('data-value') ? cell.getAttribute('data-value') : cell.textContent;
      };
      var rows = Array.prototype.slice.call(table.tBodies[0].rows);
      rows.sort(function (a, b) {
        var x = value(a), y = value(b);
        var order = numeric ? parseFloat(x) - parseFloat(y) : x.localeCompare(y);
        return ascending ? order : -order;
      });
      rows.forEach(function (row) { table.tBodies[0].appendChild(row); });
    });
  });
});
)js";

std::string header_cell(const char* name, const char* sort, bool numeric, bool sorted_desc) {
  return fmt::format(
      "<th scope=\"col\" data-sort=\"{}\"{}{}><button type=\"button\">{}</button></th>", sort,
      numeric ? " class=\"num\"" : "", sorted_desc ? " aria-sort=\"descending\"" : "", name);
}

}  // namespace

Dashboard gather_dashboard(Store& store, const std::string& since_day, const std::string& until_day,
                           const std::string& digester) {
  Dashboard d{since_day, until_day, usage_cells(store, since_day, until_day), {}, {}, {}, {}};
  const auto costs = session_costs(store);
  const int64_t until_ms = day_start_ms(until_day) + 86400000 - 1;
  std::map<std::string, ErrorGroup> errors;
  std::map<std::string, int64_t> tools;
  store.for_each_session(SessionFilter{"", "", day_start_ms(since_day)}, [&](const SessionRow& s) {
    if (s.started_at_ms == 0 || s.started_at_ms > until_ms) return;
    const auto cost = costs.find(s.uid);
    d.sessions.push_back({s, cost == costs.end() ? 0 : cost->second, ""});
  });
  for (const auto& r : d.sessions)
    if (auto digest = find_digest(store, r.session.uid, digester))
      read_digest(digest->json, errors, tools);
  std::sort(d.sessions.begin(), d.sessions.end(), [](const auto& a, const auto& b) {
    return a.session.started_at_ms > b.session.started_at_ms;
  });
  for (auto& [fp, g] : errors) d.errors.push_back(std::move(g));
  std::sort(d.errors.begin(), d.errors.end(),
            [](const auto& a, const auto& b) { return a.count > b.count; });
  for (auto& [tool, n] : tools) d.tools.emplace_back(tool, n);
  std::sort(d.tools.begin(), d.tools.end(),
            [](const auto& a, const auto& b) { return a.second > b.second; });
  std::map<std::string, std::pair<int64_t, double>> by_model;  // tokens, cost
  for (const auto& c : d.usage) {
    auto& m = by_model[c.model.empty() ? "(no model named)" : c.model];
    m.first += all_tokens(c.totals);
    m.second += c.totals.cost_usd;
  }
  for (const auto& [model, m] : by_model)
    if (m.first > 0 && m.second == 0) d.unpriced_models.push_back(model);
  return d;
}

namespace {

// The figures at the top: sessions, cost, tokens, repositories, errors.
std::string summary_cards(const Dashboard& d) {
  UsageLine total;
  for (const auto& c : d.usage) {
    total.cost_usd += c.totals.cost_usd;
    total.input_tokens += all_tokens(c.totals);
  }
  std::set<std::string> repos;
  for (const auto& r : d.sessions) repos.insert(r.session.repo);
  int64_t error_count = 0;
  for (const auto& e : d.errors) error_count += e.count;
  return fmt::format("<div class=\"cards\">{}{}{}{}{}</div>\n",
                     card("sessions", thousands(static_cast<int64_t>(d.sessions.size()))),
                     card("cost", fmt::format("${:.2f}", total.cost_usd)),
                     card("tokens", short_figure(static_cast<double>(total.input_tokens), "")),
                     card("repositories", thousands(static_cast<int64_t>(repos.size()))),
                     card("errors", thousands(error_count)));
}

std::string unpriced_note(const Dashboard& d) {
  if (d.unpriced_models.empty()) return {};
  std::string names;
  for (const auto& m : d.unpriced_models) names += (names.empty() ? "" : ", ") + m;
  return fmt::format(
      "<p class=\"note\">Cost leaves out the models without a price: {}. Add their prices "
      "with 'helix-host prices import FILE' (a LiteLLM price file).</p>\n",
      html_escape(names));
}

// Cost and tokens per day (or month), stacked by agent and by model.
std::string usage_sections(const Dashboard& d, const Buckets& b) {
  std::string body;
  const char* per = b.monthly ? "month" : "day";
  for (const bool cost : {true, false}) {
    const auto flavors = stack(d, b, false, cost), models = stack(d, b, true, cost);
    const std::string what = cost ? "Cost" : "Tokens";
    body += fmt::format("<section>\n<h2>{} per {}</h2>\n", what, per);
    body += figure(svg_stacked_bars(flavors, fmt::format("{} per {} by agent", what, per)),
                   fmt::format("{} per {} by agent (flavor){}", what, per,
                               cost ? ", in USD" : ": input, output and cache tokens"),
                   legend(flavors));
    body += figure(svg_stacked_bars(models, fmt::format("{} per {} by model", what, per)),
                   fmt::format("{} per {} by model", what, per), legend(models));
    body += "</section>\n";
  }
  return body;
}

// Sessions per repository and per outcome, and the most called tools.
std::string session_charts(const Dashboard& d) {
  std::map<std::string, double> per_repo, outcomes;
  for (const auto& r : d.sessions) {
    per_repo[r.session.repo.empty() ? "unknown" : r.session.repo] += 1;
    outcomes[r.session.outcome.empty() ? "unknown" : r.session.outcome] += 1;
  }
  LabeledBars repo_bars{{}, "sessions"}, outcome_bars{{}, "sessions"}, tool_bars{{}, "calls"};
  for (const auto& [repo, n] : per_repo) repo_bars.bars.emplace_back(repo, n);
  std::sort(repo_bars.bars.begin(), repo_bars.bars.end(),
            [](const auto& x, const auto& y) { return x.second > y.second; });
  if (repo_bars.bars.size() > kTopRepos) repo_bars.bars.resize(kTopRepos);
  for (const auto& [outcome, n] : outcomes) outcome_bars.bars.emplace_back(outcome, n);
  for (std::size_t i = 0; i < d.tools.size() && i < kTopTools; ++i)
    tool_bars.bars.emplace_back(d.tools[i].first, static_cast<double>(d.tools[i].second));
  std::string body = "<section>\n<h2>Sessions</h2>\n<div class=\"grid2\">\n";
  body += figure(svg_labeled_bars(repo_bars, "Sessions per repository"), "Sessions per repository");
  body += figure(svg_labeled_bars(outcome_bars, "Outcomes"),
                 "Outcomes, as the digest judged each session");
  body += "</div>\n</section>\n<section>\n<h2>Tools and errors</h2>\n";
  body += figure(svg_labeled_bars(tool_bars, "Most called tools"), "Most called tools");
  return body;
}

std::string error_table(const Dashboard& d) {
  std::string body = "<h3>Most frequent errors</h3>\n";
  if (d.errors.empty()) return body + "<p class=\"note\">No errors in this range.</p>\n";
  body +=
      "<table>\n<thead><tr><th scope=\"col\">Error</th><th scope=\"col\">Tool</th>"
      "<th scope=\"col\" class=\"num\">Times</th><th scope=\"col\" class=\"num\">Sessions"
      "</th><th scope=\"col\">Fingerprint</th></tr></thead>\n<tbody>\n";
  for (std::size_t i = 0; i < d.errors.size() && i < kTopErrors; ++i) {
    const auto& e = d.errors[i];
    body += fmt::format(
        "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td><code>{}</code></td></tr>\n",
        html_text(one_line(e.sample, kSampleChars)), html_escape(e.tool.empty() ? "-" : e.tool),
        thousands(e.count), thousands(e.sessions), html_escape(e.fingerprint));
  }
  return body + "</tbody>\n</table>\n";
}

}  // namespace

std::string html_dashboard(const Dashboard& d) {
  const Buckets b = buckets(d.since_day, d.until_day);
  std::string body = fmt::format(
      "<header>\n<p class=\"kicker\">Helix report</p>\n<h1>Agent sessions, {} to {}</h1>\n"
      "</header>\n<main>\n",
      d.since_day, d.until_day);
  body += summary_cards(d) + unpriced_note(d) + usage_sections(d, b) + session_charts(d) +
          error_table(d);
  body += fmt::format(
      "</section>\n<section>\n<h2>All sessions</h2>\n<p class=\"note\">{} sessions; select a "
      "column's name to sort by it.</p>\n<table data-sortable>\n<thead><tr>{}{}{}{}{}{}{}{}</tr>"
      "</thead>\n<tbody>\n{}</tbody>\n</table>\n</section>\n</main>\n",
      d.sessions.size(), header_cell("Started", "text", false, true),
      header_cell("Title", "text", false, false), header_cell("Agent", "text", false, false),
      header_cell("Repository", "text", false, false), header_cell("Turns", "number", true, false),
      header_cell("Tokens", "number", true, false), header_cell("Cost", "number", true, false),
      header_cell("Outcome", "text", false, false), session_rows(d));
  body +=
      "<footer>Written by helix-host from its store: tokens and cost from the usage ledger "
      "(kept after raw transcripts are evicted), outcomes, tools and errors from the "
      "digests.</footer>\n";
  return html_document(fmt::format("Helix report {} to {}", d.since_day, d.until_day), body,
                       kSortScript);
}

}  // namespace helix
