// How output reaches the user: colour only on a terminal (never with NO_COLOR or TERM=dumb,
// --color overrides), the width tables fit into, and a pager for long output, as git does.
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

}  // namespace helix
