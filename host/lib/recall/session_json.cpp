#include "recall/session_json.hpp"

#include <fmt/format.h>
#include <chrono>
#include <helix/json.hpp>
#include <stdexcept>

namespace helix {
namespace {

boost::json::value text_or_null(const std::string& s) {
  return s.empty() ? boost::json::value(nullptr) : boost::json::value(s);
}
boost::json::value time_or_null(int64_t ms) {
  return ms > 0 ? boost::json::value(iso8601(ms)) : boost::json::value(nullptr);
}

}  // namespace

std::string iso8601(int64_t unix_ms) {
  if (unix_ms <= 0) return {};
  const std::chrono::sys_time<std::chrono::milliseconds> t{std::chrono::milliseconds(unix_ms)};
  const auto day = std::chrono::floor<std::chrono::days>(t);
  const std::chrono::year_month_day ymd{day};
  const std::chrono::hh_mm_ss hms{t - day};
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", static_cast<int>(ymd.year()),
                     static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                     hms.hours().count(), hms.minutes().count(), hms.seconds().count(),
                     hms.subseconds().count());
}

int64_t parse_date(const std::string& text) {
  std::string s = text.size() == 10 ? text + "T00:00:00Z" : text;
  int64_t ms = helix::json::iso8601_ms(s);
  if (ms <= 0)
    throw std::invalid_argument(
        fmt::format("'{}' is not a date (use YYYY-MM-DD or an ISO-8601 "
                    "time such as 2026-06-05T21:59:30Z)",
                    text));
  return ms;
}

boost::json::object session_json(const SessionRow& s) {
  const int64_t wall = s.started_at_ms > 0 && s.ended_at_ms >= s.started_at_ms
                           ? (s.ended_at_ms - s.started_at_ms) / 1000
                           : 0;
  boost::json::object cost{
      {"input_tokens", s.usage.input_tokens},
      {"output_tokens", s.usage.output_tokens},
      {"cache_tokens", s.usage.cache_read_tokens + s.usage.cache_creation_tokens},
      {"cache_read_tokens", s.usage.cache_read_tokens},
      {"cache_creation_tokens", s.usage.cache_creation_tokens},
      {"reasoning_tokens", s.usage.reasoning_tokens},
      {"wall_clock_s", wall},
      {"turns", s.turns},
      {"retries", s.retries},
      {"cost_usd", s.cost_usd ? boost::json::value(*s.cost_usd) : boost::json::value(nullptr)},
      {"agent_cost_usd",
       s.agent_cost_usd ? boost::json::value(*s.agent_cost_usd) : boost::json::value(nullptr)},
      {"unpriced_tokens", s.unpriced_tokens}};
  return {{"session_uid", s.uid},
          {"flavor", s.flavor},
          {"native_session_id", s.native_id},
          {"parent_session_uid", text_or_null(s.parent_uid)},
          {"forked_from", text_or_null(s.forked_from)},
          {"title", text_or_null(s.title)},
          {"title_source", s.title.empty()   ? boost::json::value(nullptr)
                           : s.title_derived ? boost::json::value("first_prompt")
                                             : boost::json::value("agent")},
          {"repo", text_or_null(s.repo)},
          {"domain", text_or_null(s.domain)},
          {"cwd", text_or_null(s.cwd)},
          {"git_branch", text_or_null(s.git_branch)},
          {"model", text_or_null(s.model)},
          {"agent_version", text_or_null(s.agent_version)},
          {"started_at", time_or_null(s.started_at_ms)},
          {"ended_at", time_or_null(s.ended_at_ms)},
          {"outcome", s.outcome},
          {"cost", std::move(cost)},
          {"task_ref", text_or_null(s.task_ref)},
          {"source_path", text_or_null(s.source_path)},
          {"source_bytes", s.source_bytes},
          {"schema_version", s.schema_version},
          {"discovered_at", time_or_null(s.discovered_at_ms)},
          {"ingested_at", time_or_null(s.ingested_at_ms)},
          {"analyzed_at", time_or_null(s.analyzed_at_ms)},
          {"evicted_at", time_or_null(s.evicted_at_ms)},
          {"event_count", s.event_count},
          {"redactions", s.redactions}};
}

boost::json::object event_json(const EventRow& e, bool with_bodies) {
  boost::json::object o{{"seq", e.seq},
                        {"parent_seq", e.parent_seq >= 0 ? boost::json::value(e.parent_seq)
                                                         : boost::json::value(nullptr)},
                        {"ts", time_or_null(e.ts_ms)},
                        {"kind", e.kind},
                        {"role", text_or_null(e.role)},
                        {"tool", text_or_null(e.tool)},
                        {"summary", text_or_null(e.summary)},
                        {"payload_ref", text_or_null(e.payload_ref)},
                        {"tokens", e.tokens},
                        {"is_sidechain", e.is_sidechain},
                        {"uid", text_or_null(e.uid)},
                        {"parent_uid", text_or_null(e.parent_uid)},
                        {"call_id", text_or_null(e.call_id)},
                        {"model", text_or_null(e.model)},
                        {"source_path", e.source_path},
                        {"source_offset", e.source_offset},
                        {"ordinal", e.ordinal}};
  if (with_bodies) o["text"] = text_or_null(e.text);
  return o;
}

boost::json::object status_json(const StoreStatus& s, const std::string& store_file) {
  boost::json::object states;
  for (const auto& [state, n] : s.sources_by_state) states[state] = n;
  boost::json::array unread;  // quarantined and orphaned sources, with why
  for (const auto& u : s.unread_sources)
    unread.push_back(boost::json::object{{"path", u.path},
                                         {"state", to_string(u.state)},
                                         {"plugin", u.adapter},
                                         {"reason", u.reason}});
  return {{"store", store_file},          {"unread_sources", std::move(unread)},
          {"sessions", s.sessions},       {"events", s.events},
          {"sources", s.sources},         {"sources_by_state", std::move(states)},
          {"warnings", s.warnings},       {"tier1_bytes", s.tier1_bytes},
          {"tier2_bytes", s.tier2_bytes}, {"store_file_bytes", s.file_bytes}};
}

}  // namespace helix
