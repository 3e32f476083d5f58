#include "cli/table.hpp"

#include <fmt/format.h>
#include <utf8proc.h>

#include <algorithm>
#include <cctype>

namespace helix {
namespace {

constexpr std::size_t kGap = 2;  // spaces between columns

// The length of the colour sequence (ESC [ ... letter) at `at`, or 0.
std::size_t escape_length(std::string_view text, std::size_t at) {
  if (text[at] != '\033' || at + 1 >= text.size() || text[at + 1] != '[') return 0;
  std::size_t end = at + 2;
  while (end < text.size() && !std::isalpha(static_cast<unsigned char>(text[end]))) ++end;
  return end < text.size() ? end + 1 - at : 0;
}

// Calls each(code_point, bytes) for every character; invalid bytes count as U+FFFD. Colour
// sequences come as one code point 0 (no width).
template <typename Each>
void for_each_char(std::string_view text, Each each) {
  std::size_t at = 0;
  while (at < text.size()) {
    if (const std::size_t n = escape_length(text, at)) {
      each(0, text.substr(at, n));
      at += n;
      continue;
    }
    utf8proc_int32_t cp = 0;
    auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + at),
                              static_cast<utf8proc_ssize_t>(text.size() - at), &cp);
    if (n <= 0) {
      each(0xFFFD, std::string_view("\xEF\xBF\xBD"));
      ++at;
      continue;
    }
    each(cp, text.substr(at, static_cast<std::size_t>(n)));
    at += static_cast<std::size_t>(n);
  }
}

std::size_t char_width(utf8proc_int32_t cp) {
  if (cp == 0) return 0;                                 // a colour sequence
  if (cp == '\n' || cp == '\t' || cp == '\r') return 1;  // shown as a space
  const int w = utf8proc_charwidth(cp);
  return w < 0 ? 0 : static_cast<std::size_t>(w);
}

// The cells a line of columns `widths` takes, with the gaps between the columns shown.
std::size_t line_width(const std::vector<std::size_t>& widths, const std::vector<bool>& dropped) {
  std::size_t sum = 0, shown = 0;
  for (std::size_t c = 0; c < widths.size(); ++c) sum += widths[c], shown += !dropped[c];
  return sum + kGap * (shown == 0 ? 0 : shown - 1);
}

}  // namespace

std::size_t display_width(std::string_view text) {
  std::size_t cells = 0;
  for_each_char(text, [&](utf8proc_int32_t cp, std::string_view) { cells += char_width(cp); });
  return cells;
}

std::string fit_width(std::string_view text, std::size_t cells) {
  const bool cut = display_width(text) > cells;
  const std::size_t room = cut ? (cells == 0 ? 0 : cells - 1) : cells;  // "…" takes one cell
  std::string out;
  std::size_t used = 0;
  bool full = false;
  for_each_char(text, [&](utf8proc_int32_t cp, std::string_view bytes) {
    if (full) return;
    const std::size_t w = char_width(cp);
    if (used + w > room) {
      full = true;
      return;
    }
    used += w;
    const bool colour = cp == 0;                   // kept: it takes no cell
    const bool control = cp < 0x20 || cp == 0x7F;  // would move the cursor: dropped
    if (cp == '\n' || cp == '\t' || cp == '\r')
      out += ' ';
    else if (colour || !control)
      out += bytes;
  });
  if (cut && cells > 0) out += out.find('\033') != std::string::npos ? "\033[0m…" : "…";
  return out;
}

std::string grouped(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string dollars(double usd) {
  const std::string fixed = fmt::format("{:.2f}", usd);
  const auto dot = fixed.find('.');
  return grouped(std::stoll(fixed.substr(0, dot))) + fixed.substr(dot);
}

std::string counted(int64_t n, std::string_view singular, std::string_view plural) {
  return fmt::format("{} {}", grouped(n), n == 1 ? singular : plural);
}

std::vector<std::size_t> Table::natural_widths(const std::vector<bool>& dropped) const {
  std::vector<std::size_t> w(columns_.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (dropped[c]) continue;
    w[c] = display_width(columns_[c].header);
    for (const auto* rows : {&rows_, &footer_})
      for (const auto& row : *rows)
        if (c < row.size()) w[c] = std::max(w[c], display_width(row[c]));
  }
  return w;
}

void Table::shrink(std::vector<std::size_t>& w, const std::vector<bool>& dropped,
                   std::size_t limit) const {
  while (line_width(w, dropped) > limit) {
    std::size_t widest = columns_.size();
    for (std::size_t c = 0; c < columns_.size(); ++c)
      if (!dropped[c] && columns_[c].shrink_to > 0 && w[c] > columns_[c].shrink_to &&
          (widest == columns_.size() || w[c] > w[widest]))
        widest = c;
    if (widest == columns_.size()) return;
    --w[widest];
  }
}

std::size_t Table::next_to_drop(const std::vector<bool>& dropped) const {
  std::size_t drop = columns_.size();
  for (std::size_t c = 0; c < columns_.size(); ++c)
    if (columns_[c].drop_rank > 0 && !dropped[c] &&
        (drop == columns_.size() || columns_[c].drop_rank < columns_[drop].drop_rank))
      drop = c;
  return drop;
}

std::vector<std::size_t> Table::widths(std::size_t limit) const {
  std::vector<bool> dropped(columns_.size(), false);
  for (;;) {
    std::vector<std::size_t> w = natural_widths(dropped);
    if (limit == 0) return w;
    shrink(w, dropped, limit);
    if (line_width(w, dropped) <= limit) return w;
    // Nothing left to cut: leave a column out and start over.
    const std::size_t drop = next_to_drop(dropped);
    if (drop == columns_.size()) return w;  // the lines will be cut
    dropped[drop] = true;
  }
}

std::string Table::line(const std::vector<std::string>& cells,
                        const std::vector<std::size_t>& widths, std::size_t limit) const {
  std::string out;
  std::size_t pending_spaces = 0;  // trailing padding is written only when something follows
  bool first = true;
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (widths[c] == 0 && columns_[c].drop_rank > 0) continue;  // left out
    const std::string text = fit_width(c < cells.size() ? cells[c] : "", widths[c]);
    const std::size_t pad = widths[c] - display_width(text);
    if (!first) pending_spaces += kGap;
    first = false;
    if (columns_[c].right) pending_spaces += pad;
    if (!text.empty()) {
      out.append(pending_spaces, ' ');
      pending_spaces = 0;
      out += text;
    }
    if (!columns_[c].right) pending_spaces += pad;
  }
  return (limit > 0 && display_width(out) > limit ? fit_width(out, limit) : out) + "\n";
}

std::string Table::render(std::size_t width) const {
  const auto w = widths(width);
  std::vector<std::string> headers;
  for (const auto& c : columns_) headers.push_back(c.header);
  std::string out = line(headers, w, width);
  for (const auto& row : rows_) out += line(row, w, width);
  for (const auto& row : footer_) out += line(row, w, width);
  return out;
}

}  // namespace helix
