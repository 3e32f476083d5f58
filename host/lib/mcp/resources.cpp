// Session resources (see resources.hpp).
#include "mcp/resources.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "mcp/json_rpc.hpp"
#include "recall/session_json.hpp"
#include "recall/transcript.hpp"

namespace helix::mcp {
namespace {

namespace json = boost::json;
constexpr std::string_view kPrefix = "helix://session/";

std::string uri_of(const std::string& uid) { return std::string(kPrefix) + uid; }

json::object resource(const SessionRow& s) {
  std::string description = s.flavor;
  if (!s.repo.empty()) description += " · " + s.repo;
  if (s.started_at_ms > 0) description += " · " + iso8601(s.started_at_ms).substr(0, 16);
  json::object r{{"uri", uri_of(s.uid)},
                 {"name", s.uid},
                 {"title", s.title.empty() ? s.uid : s.title},
                 {"description", description},
                 {"mimeType", "text/markdown"}};
  if (s.ended_at_ms > 0) r["annotations"] = {{"lastModified", iso8601(s.ended_at_ms)}};
  return r;
}

// The transcript cut into pages of about kTranscriptPageBytes, at line ends.
std::vector<std::string> pages_of(const std::string& text) {
  std::vector<std::string> pages;
  std::size_t from = 0;
  while (from < text.size()) {
    std::size_t end = std::min(text.size(), from + kTranscriptPageBytes);
    if (end < text.size()) {
      const auto nl = text.rfind('\n', end);
      if (nl != std::string::npos && nl > from) end = nl + 1;
    }
    pages.push_back(text.substr(from, end - from));
    from = end;
  }
  if (pages.empty()) pages.emplace_back();
  return pages;
}

std::string transcript(Store& store, const SessionRow& s) {
  if (s.evicted_at_ms == 0) return markdown_transcript(s, store.events(s.uid, true));
  return markdown_digest(s, stored_digests(store, s.uid));
}

struct SessionUri {
  std::string uid;
  std::size_t page = 1;
};

SessionUri parse_uri(const std::string& uri) {
  if (uri.rfind(kPrefix, 0) != 0)
    throw RpcFailure(kResourceNotFound,
                     fmt::format("no resource '{}': this server has helix://session/<uid>", uri),
                     json::object{{"uri", uri}});
  SessionUri u;
  std::string rest = uri.substr(kPrefix.size());
  if (const auto q = rest.find('?'); q != std::string::npos) {
    const std::string query = rest.substr(q + 1);
    rest.resize(q);
    std::size_t n = 0;
    if (query.rfind("page=", 0) != 0 || query.size() == 5 ||
        query.find_first_not_of("0123456789", 5) != std::string::npos ||
        (n = std::stoul(query.substr(5, 9))) == 0)
      throw RpcFailure(kInvalidParams,
                       fmt::format("'{}': the only query is page=N, N from 1", uri));
    u.page = n;
  }
  u.uid = rest;
  return u;
}

}  // namespace

json::object list_resources(Store& store, const Scope& scope, const std::string& cursor) {
  std::size_t offset = 0;
  if (!cursor.empty()) {
    if (cursor.find_first_not_of("0123456789") != std::string::npos || cursor.size() > 9)
      throw RpcFailure(kInvalidParams,
                       fmt::format("'{}' is not a cursor this server gave", cursor));
    offset = std::stoul(cursor);
  }
  std::vector<SessionRow> rows;
  store.for_each_session(SessionFilter{}, [&](const SessionRow& s) {
    if (scope.allows(s.repo)) rows.push_back(s);
  });
  std::stable_sort(rows.begin(), rows.end(), [](const SessionRow& a, const SessionRow& b) {
    return a.started_at_ms > b.started_at_ms;
  });
  json::array list;
  for (std::size_t i = offset; i < rows.size() && i < offset + kSessionsPerListPage; ++i)
    list.push_back(resource(rows[i]));
  json::object out{{"resources", std::move(list)}};
  if (offset + kSessionsPerListPage < rows.size())
    out["nextCursor"] = std::to_string(offset + kSessionsPerListPage);
  return out;
}

json::object resource_templates() {
  return {{"resourceTemplates",
           json::array{json::object{
               {"uriTemplate", "helix://session/{uid}{?page}"},
               {"name", "session"},
               {"title", "A past session's transcript"},
               {"description",
                "The markdown transcript of a stored session (its digest once its raw events "
                "were evicted), in pages of 32 KiB: page 1 without ?page, each page's last line "
                "names the next."},
               {"mimeType", "text/markdown"}}}}};
}

json::object read_resource(Store& store, const Scope& scope, const std::string& uri) {
  const SessionUri u = parse_uri(uri);
  const auto session = store.session(u.uid);
  if (!session)
    throw RpcFailure(kResourceNotFound, fmt::format("no session {} in the store", u.uid),
                     json::object{{"uri", uri}});
  if (!scope.allows(session->repo))
    throw RpcFailure(kResourceNotFound, outside_scope(scope, "session " + u.uid),
                     json::object{{"uri", uri}});
  const auto pages = pages_of(transcript(store, *session));
  if (u.page > pages.size())
    throw RpcFailure(kInvalidParams, fmt::format("{} has {} page{}", uri_of(u.uid), pages.size(),
                                                 pages.size() == 1 ? "" : "s"));
  std::string text = pages[u.page - 1];
  text += fmt::format("\n\n---\n_{} · page {} of {}", u.uid, u.page, pages.size());
  if (u.page < pages.size()) text += fmt::format(" · next: {}?page={}", uri_of(u.uid), u.page + 1);
  text += "_\n";
  return {
      {"contents", json::array{json::object{
                       {"uri", uri}, {"mimeType", "text/markdown"}, {"text", std::move(text)}}}}};
}

}  // namespace helix::mcp
