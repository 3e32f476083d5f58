// Inline SVG charts (see svg_chart.hpp).
#include "report/svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/text.hpp"
#include "recall/html_page.hpp"

namespace helix {
namespace {

constexpr double kWidth = 720, kHeight = 260;
constexpr double kLeft = 60, kRight = 12, kTop = 12, kBottom = 36;
constexpr std::size_t kMaxAxisLabels = 12;
constexpr double kBarRow = 24, kLabelColumn = 170, kBarsWidth = 480;
constexpr std::size_t kLabelChars = 26;

// Colour-blind-safe (Okabe-Ito), then greys for the rest.
constexpr const char* kPalette[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                    "#56B4E9", "#D55E00", "#F0E442", "#999999"};

// A round step for about four grid lines up to `max`.
double nice_step(double max) {
  if (max <= 0) return 1;
  const double raw = max / 4, magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (raw <= m * magnitude) return m * magnitude;
  return 10 * magnitude;
}

// "2026-01-06" -> "01-06"; anything else as it is.
std::string axis_label(const std::string& category) {
  const bool day = category.size() == 10 && category[4] == '-' && category[7] == '-';
  return day ? category.substr(5) : category;
}

}  // namespace

std::string series_colour(std::size_t n) { return kPalette[std::min(n, std::size(kPalette) - 1)]; }

std::string short_figure(double value, const std::string& unit) {
  const double a = std::fabs(value);
  std::string number;
  if (unit == "$")
    number = a >= 1000 ? fmt::format("{:.0f}", value) : fmt::format("{:.2f}", value);
  else if (a >= 1e9)
    number = fmt::format("{:.1f}G", value / 1e9);
  else if (a >= 1e6)
    number = fmt::format("{:.1f}M", value / 1e6);
  else if (a >= 1e3)
    number = fmt::format("{:.1f}k", value / 1e3);
  else
    number = fmt::format("{:.0f}", value);
  if (unit == "$") return "$" + number;
  return unit.empty() ? number : number + " " + unit;
}

std::string svg_stacked_bars(const StackedBars& chart, const std::string& title) {
  const std::size_t n = chart.categories.size();
  std::vector<double> totals(n, 0);
  for (const auto& s : chart.series)
    for (std::size_t i = 0; i < n && i < s.values.size(); ++i) totals[i] += s.values[i];
  const double highest = n ? *std::max_element(totals.begin(), totals.end()) : 0;
  const double step = nice_step(highest);
  const double top = step * std::max(1.0, std::ceil(highest / step));
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto y = [&](double v) { return kTop + plot_h - v / top * plot_h; };
  std::string svg =
      fmt::format(R"(<svg class="chart" viewBox="0 0 {} {}" role="img" aria-label="{}">)"
                  "<title>{}</title>\n",
                  kWidth, kHeight, html_escape(title), html_escape(title));
  const int lines = static_cast<int>(std::lround(top / step));
  for (int line = 0; line <= lines; ++line) {  // grid lines and their figures
    const double v = step * line;
    svg += fmt::format(
        R"(<line class="axis" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"></line>)"
        R"(<text x="{:.1f}" y="{:.1f}" text-anchor="end">{}</text>)"
        "\n",
        kLeft, y(v), kWidth - kRight, y(v), kLeft - 6, y(v) + 4,
        html_escape(short_figure(v, chart.unit == "$" ? "$" : "")));  // other units: the caption
  }
  const double band = n ? plot_w / static_cast<double>(n) : plot_w;
  const double bar = std::max(1.0, band * 0.72);
  const std::size_t every = (n + kMaxAxisLabels - 1) / kMaxAxisLabels;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = kLeft + band * static_cast<double>(i) + (band - bar) / 2;
    double base = 0;
    for (std::size_t s = 0; s < chart.series.size(); ++s) {
      const double v = i < chart.series[s].values.size() ? chart.series[s].values[i] : 0;
      if (v <= 0) continue;
      svg +=
          fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}">)"
                      "<title>{} · {}: {}</title></rect>\n",
                      x, y(base + v), bar, std::max(0.5, y(base) - y(base + v)), series_colour(s),
                      html_escape(chart.categories[i]), html_escape(chart.series[s].name),
                      html_escape(short_figure(v, chart.unit)));
      base += v;
    }
    if (i % std::max<std::size_t>(every, 1) == 0)
      svg += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="middle">{}</text>)"
                         "\n",
                         x + bar / 2, kHeight - kBottom + 16,
                         html_escape(axis_label(chart.categories[i])));
  }
  if (n == 0)
    svg += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle">no data in this range</text>)",
                       kWidth / 2, kHeight / 2);
  return svg + "</svg>\n";
}

std::string svg_labeled_bars(const LabeledBars& chart, const std::string& title) {
  const double height =
      kTop * 2 + kBarRow * static_cast<double>(std::max<std::size_t>(chart.bars.size(), 1));
  double max = 0;
  for (const auto& [label, v] : chart.bars) max = std::max(max, v);
  const double plot_w = kBarsWidth - kLabelColumn - 80;
  std::string svg =
      fmt::format(R"(<svg class="chart bars" viewBox="0 0 {} {:.0f}" role="img" aria-label="{}">)"
                  "<title>{}</title>\n",
                  kBarsWidth, height, html_escape(title), html_escape(title));
  double y = kTop;
  for (std::size_t i = 0; i < chart.bars.size(); ++i, y += kBarRow) {
    const auto& [label, v] = chart.bars[i];
    const double w = max > 0 ? std::max(1.0, v / max * plot_w) : 1.0;
    const std::string figure = short_figure(v, chart.unit);
    svg += fmt::format(
        R"(<text x="{:.1f}" y="{:.1f}" text-anchor="end">{}</text>)"
        R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}"><title>{}: {}</title></rect>)"
        R"(<text x="{:.1f}" y="{:.1f}">{}</text>)"
        "\n",
        kLabelColumn - 8, y + kBarRow * 0.65, html_escape(one_line(label, kLabelChars)),
        kLabelColumn, y + kBarRow * 0.15, w, kBarRow * 0.7, series_colour(0), html_escape(label),
        html_escape(figure), kLabelColumn + w + 6, y + kBarRow * 0.65, html_escape(figure));
  }
  if (chart.bars.empty())
    svg += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle">none in this range</text>)",
                       kBarsWidth / 2, kTop + kBarRow * 0.65);
  return svg + "</svg>\n";
}

}  // namespace helix
