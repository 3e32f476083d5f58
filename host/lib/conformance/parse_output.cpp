#include "conformance/parse_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace helix {
namespace {

// Fields with '|' between them; texts longer than a screen are cut for the report only after
// comparison (here they are kept whole).
std::string event_line(const EventRecord& e, const std::string& payload) {
  return fmt::format(
      "event {}@{}#{} flags={} ts={} kind={} role={} tool={} uid={} parent={} "
      "call={} model={} summary={:?} text={:?} payload={:?}",
      e.session_id, e.source_offset, e.ordinal, e.flags, e.ts_ms, e.kind, e.role, e.tool, e.uid,
      e.parent_uid, e.call_id, e.model, e.summary, e.text, payload);
}

std::string usage_line(const UsageRecord& u) {
  return fmt::format(
      "usage {}@{} key={} flags={} ts={} model={} in={} out={} cache_read={} "
      "cache_creation={} reasoning={} cost={}",
      u.session_id, u.source_offset, u.key, u.flags, u.ts_ms, u.model, u.input_tokens,
      u.output_tokens, u.cache_read_tokens, u.cache_creation_tokens, u.reasoning_tokens,
      u.cost_usd);
}

std::string session_line(const SessionRecord& s) {
  return fmt::format(
      "session {} parent={} cwd={} branch={} model={} title={:?} version={} "
      "start={} end={}",
      s.native_id, s.parent_native_id, s.cwd, s.git_branch, s.model, s.title, s.agent_version,
      s.started_at_ms, s.ended_at_ms);
}

// The host's merge rule (helix_plugin.h, helix_session): started_at keeps the minimum, ended_at
// the maximum, cwd and parent the first value known, every other field the latest.
void merge(SessionRecord& into, const SessionRecord& s) {
  auto latest = [](std::string& to, const std::string& from) {
    if (!from.empty()) to = from;
  };
  auto first = [](std::string& to, const std::string& from) {
    if (to.empty()) to = from;
  };
  first(into.cwd, s.cwd);
  first(into.parent_native_id, s.parent_native_id);
  latest(into.git_branch, s.git_branch);
  latest(into.model, s.model);
  latest(into.title, s.title);
  latest(into.agent_version, s.agent_version);
  if (s.started_at_ms && (!into.started_at_ms || s.started_at_ms < into.started_at_ms))
    into.started_at_ms = s.started_at_ms;
  into.ended_at_ms = std::max(into.ended_at_ms, s.ended_at_ms);
}

std::string cut(const std::string& line) {
  return line.size() > 300 ? line.substr(0, 300) + "..." : line;
}

// The first line in one sorted list and not in the other.
std::string first_missing(const ParseOutput::Lines& a, const ParseOutput::Lines& b) {
  std::vector<std::string> x, y, only;
  for (const auto& l : a) x.push_back(l.second);
  for (const auto& l : b) y.push_back(l.second);
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  std::set_difference(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(only));
  return only.empty() ? "" : only.front();
}

std::string compare(const char* what, const ParseOutput::Lines& expected,
                    const ParseOutput::Lines& got) {
  if (auto missing = first_missing(expected, got); !missing.empty())
    return fmt::format("{} {} expected, {} given; missing: {}", expected.size(), what, got.size(),
                       cut(missing));
  if (auto extra = first_missing(got, expected); !extra.empty())
    return fmt::format("{} {} expected, {} given; not expected: {}", expected.size(), what,
                       got.size(), cut(extra));
  if (expected.size() != got.size())
    return fmt::format("{} {} expected, {} given (some repeated)", expected.size(), what,
                       got.size());
  return {};
}

}  // namespace

void ParseOutput::add(const RecordBatch& batch) {
  for (const auto& e : batch.events) {
    const std::string payload =
        e.payload_index >= 0 ? batch.payloads[static_cast<std::size_t>(e.payload_index)] : "";
    events.emplace_back(e.source_offset, event_line(e, payload));
    payloads.emplace_back(e.source_offset, payload);
    identities.push_back(fmt::format("offset {} ordinal {}", e.source_offset, e.ordinal));
    if (!e.uid.empty())
      uid_identities.push_back(
          fmt::format("session {} uid {} ordinal {}", e.session_id, e.uid, e.ordinal));
  }
  for (const auto& u : batch.usage) usage.emplace_back(u.source_offset, usage_line(u));
  for (const auto& w : batch.warnings)
    warnings.emplace_back(
        w.source_offset, fmt::format("warning @{} {}: {}", w.source_offset, w.category, w.message));
  for (const auto& s : batch.sessions) {
    auto [it, inserted] = sessions.try_emplace(s.native_id, s);
    if (!inserted) merge(it->second, s);
  }
}

void ParseOutput::absorb(const ParseOutput& other) {
  auto append = [](auto& to, const auto& from) { to.insert(to.end(), from.begin(), from.end()); };
  append(events, other.events);
  append(usage, other.usage);
  append(warnings, other.warnings);
  append(payloads, other.payloads);
  append(identities, other.identities);
  append(uid_identities, other.uid_identities);
  for (const auto& [id, s] : other.sessions) {
    auto [it, inserted] = sessions.try_emplace(id, s);
    if (!inserted) merge(it->second, s);
  }
  if (other.failed && !failed) {
    failed = true;
    error = other.error;
  }
}

void ParseOutput::seal() {
  for (Lines* lines : {&events, &usage, &warnings}) std::sort(lines->begin(), lines->end());
}

std::string ParseOutput::difference(const ParseOutput& other, bool with_warnings) const {
  if (failed != other.failed)
    return failed ? "the reference call failed: " + error : "a call failed: " + other.error;
  if (auto d = compare("events", events, other.events); !d.empty()) return d;
  if (auto d = compare("usage records", usage, other.usage); !d.empty()) return d;
  if (with_warnings)
    if (auto d = compare("warnings", warnings, other.warnings); !d.empty()) return d;
  for (const auto& [id, s] : sessions) {
    auto it = other.sessions.find(id);
    if (it == other.sessions.end()) return "session " + id + " missing";
    if (session_line(s) != session_line(it->second))
      return fmt::format("session differs: expected {}, given {}", session_line(s),
                         session_line(it->second));
  }
  if (other.sessions.size() != sessions.size()) return "sessions differ in number";
  return {};
}

std::string ParseOutput::not_in(const ParseOutput& whole) const {
  if (auto extra = first_missing(events, whole.events); !extra.empty()) return cut(extra);
  return cut(first_missing(usage, whole.usage));
}

std::string ParseOutput::duplicate_identity() const {
  std::set<std::string> seen;
  for (const auto& id : identities)
    if (!seen.insert(id).second) return id;
  return {};
}

std::size_t ParseOutput::repeated_uids() const {
  std::set<std::string> seen;
  std::size_t repeated = 0;
  for (const auto& id : uid_identities) repeated += !seen.insert(id).second;
  return repeated;
}

}  // namespace helix
