// Text tables that fit the terminal: columns measured in display cells (wide CJK characters
// count two), cut by characters with "…", numbers grouped by thousands.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace helix {

// Display cells of UTF-8 text as a terminal shows it (utf8proc's character widths).
std::size_t display_width(std::string_view text);
// The longest prefix of `text` (one line: newlines and tabs become spaces) that fits `cells`,
// ending in "…" when it was cut. Never splits a character.
std::string fit_width(std::string_view text, std::size_t cells);

// 1234567 -> "1,234,567".
std::string grouped(int64_t n);
// A dollar amount as a table shows it: "12.35", "0.00", "-" for none.
std::string dollars(double usd);
// "1 session", "2 sessions".
std::string counted(int64_t n, std::string_view singular, std::string_view plural);

struct Column {
  std::string header;
  bool right = false;         // numbers are right-aligned
  std::size_t shrink_to = 0;  // 0: never cut; else the narrowest it may be cut to
  int drop_rank = 0;          // 0: always shown; else left out when nothing else fits, 1 first
};

class Table {
 public:
  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}
  void add(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  // A row drawn after a rule, e.g. a total.
  void add_footer(std::vector<std::string> cells) { footer_.push_back(std::move(cells)); }
  bool empty() const { return rows_.empty(); }

  // The table in at most `width` display cells per line (0 = no limit): the widest cuttable
  // columns give way first, and a line that still does not fit is cut.
  std::string render(std::size_t width) const;

 private:
  // Each column's width; 0 for a column left out.
  std::vector<std::size_t> widths(std::size_t limit) const;
  // The widths the headers and cells ask for; 0 for the columns in `dropped`.
  std::vector<std::size_t> natural_widths(const std::vector<bool>& dropped) const;
  // Cuts the columns that may be cut, one cell at a time from the widest, until the line fits
  // in `limit` or none may give way further.
  void shrink(std::vector<std::size_t>& widths, const std::vector<bool>& dropped,
              std::size_t limit) const;
  // The column to leave out next (the lowest drop rank still shown), or columns_.size().
  std::size_t next_to_drop(const std::vector<bool>& dropped) const;
  std::string line(const std::vector<std::string>& cells, const std::vector<std::size_t>& widths,
                   std::size_t limit) const;
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_, footer_;
};

}  // namespace helix
