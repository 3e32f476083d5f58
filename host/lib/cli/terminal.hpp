// How output reaches the user: colour only on a terminal (never with NO_COLOR or TERM=dumb,
// --color overrides), the width tables and messages fit into, and a pager for long output, as
// git does.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace helix {

struct OutputStyle {
  bool color = false;
  std::size_t width = 0;  // display cells per line; 0 = no limit (not a terminal, no COLUMNS)
  bool may_page = false;  // standard output is a terminal and --no-pager was not given
};

// Decided once, before anything is written: `color_option` is auto, always or never.
OutputStyle decide_output_style(std::string_view color_option, bool no_pager);

// Sends the rest of standard output through $PAGER (default "less", with LESS=FRX unless set,
// so that short output stays on screen) when `style.may_page`. Nothing when PAGER is empty or
// "cat". finish_pager waits for the pager to end; run_cli calls it before returning.
void start_pager(const OutputStyle& style);
void finish_pager();

// `text` in bold or dim when colour is on; as it is otherwise.
std::string bold(const OutputStyle& style, std::string_view text);
std::string dim(const OutputStyle& style, std::string_view text);

// `text` broken at spaces into lines of at most `width` display cells, every line after the
// first starting with `indent`; a word wider than a line stays whole. `width` 0: one line.
std::string wrap_words(std::string_view text, std::size_t width, std::string_view indent);

// Writes "helix-host: <message>" and a newline to standard error, wrapped to the terminal's
// width (continuation lines indented) when standard error is a terminal; one line otherwise, so
// that logs and scripts get one line per message.
void print_message(std::string_view message);

}  // namespace helix
