// Session transcripts as MCP resources: helix://session/<uid> is the session's markdown
// transcript (its digest once the raw events were evicted), read a page at a time
// (helix://session/<uid>?page=N); resources/list pages through the sessions in scope.
#pragma once

#include <boost/json.hpp>
#include <cstddef>
#include <string>

#include "mcp/scope.hpp"
#include "store/store.hpp"

namespace helix::mcp {

inline constexpr std::size_t kSessionsPerListPage = 25;
inline constexpr std::size_t kTranscriptPageBytes = 32 * 1024;

// resources/list: a page of the sessions in scope, newest first; `cursor` is the last page's
// nextCursor ("" for the first). Throws RpcFailure (invalid params) for a cursor it never gave.
boost::json::object list_resources(Store& store, const Scope& scope, const std::string& cursor);

boost::json::object resource_templates();

// resources/read. Throws RpcFailure: resource not found (no such session, or outside the
// scope, which says so), invalid params (a malformed URI or page).
boost::json::object read_resource(Store& store, const Scope& scope, const std::string& uri);

}  // namespace helix::mcp
