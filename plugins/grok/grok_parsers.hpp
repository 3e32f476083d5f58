// The Grok Build source parsers, one per file of a session directory (see grok_adapter.cpp).
#pragma once

#include "grok_common.hpp"

namespace grok {

void parse_updates(helix::ParseContext& ctx, const SourcePath& source);
void parse_chat_history(helix::ParseContext& ctx, const SourcePath& source);
void parse_events(helix::ParseContext& ctx, const SourcePath& source);
void parse_prompt_history(helix::ParseContext& ctx, const SourcePath& source);
void parse_summary(helix::ParseContext& ctx, const SourcePath& source);
void parse_usage(helix::ParseContext& ctx, const SourcePath& source);
void parse_cwd_file(helix::ParseContext& ctx, const SourcePath& source);
void parse_subagent_meta(helix::ParseContext& ctx);

}  // namespace grok
