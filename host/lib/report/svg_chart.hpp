// Charts as inline SVG: drawn by Helix, readable without a script, each shape with a <title>
// that names its value (a tooltip on screen, text for screen readers).
#pragma once

#include <string>
#include <vector>

namespace helix {

// Bars over a category axis (days), one stacked segment per series.
struct StackedBars {
  std::vector<std::string> categories;  // the x axis, in order
  struct Series {
    std::string name;
    std::vector<double> values;  // one per category
  };
  std::vector<Series> series;  // stacked bottom-up in this order
  std::string unit;            // "$" is a prefix, any other unit a suffix ("tokens")
};

// Horizontal bars, one per label, longest first as given.
struct LabeledBars {
  std::vector<std::pair<std::string, double>> bars;
  std::string unit;
};

// The colour of the n-th series (the same in the chart and its legend).
std::string series_colour(std::size_t n);

// <svg class="chart" ...> with `title` as its accessible name.
std::string svg_stacked_bars(const StackedBars& chart, const std::string& title);
std::string svg_labeled_bars(const LabeledBars& chart, const std::string& title);

// "1.2k", "3.4M", "$12.35": short figures for axes and labels.
std::string short_figure(double value, const std::string& unit);

}  // namespace helix
