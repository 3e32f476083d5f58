#include "state.hpp"

#include <boost/json.hpp>
#include <cstdio>
#include <stdexcept>

namespace session_digest {
namespace json = boost::json;
namespace {

constexpr int64_t kStateVersion = 1;

// Hashes as 16 hex digits: JSON numbers above 2^53 do not survive every reader.
std::string hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

uint64_t unhex(const json::value& v) {
  const std::string s(v.as_string());
  if (s.size() != 16 || s.find_first_not_of("0123456789abcdef") != std::string::npos)
    throw std::invalid_argument("a hash in the state is not 16 hex digits");
  return std::stoull(s, nullptr, 16);
}

json::object counts(const std::map<std::string, int64_t>& m) {
  json::object o;
  for (const auto& [k, n] : m) o[k] = n;
  return o;
}

std::map<std::string, int64_t> uncounts(const json::value& v) {
  std::map<std::string, int64_t> m;
  for (const auto& [k, n] : v.as_object()) m[std::string(k)] = n.as_int64();
  return m;
}

json::value optional_text(const std::optional<std::string>& s) {
  return s ? json::value(*s) : json::value(nullptr);
}

json::object decision(const Decision& d) {
  json::array options;
  for (const auto& o : d.options) options.push_back(json::value(o));
  return {{"source", d.source},
          {"id", d.id},
          {"question", d.question},
          {"recommendation", d.recommendation},
          {"options", std::move(options)},
          {"answer", optional_text(d.answer)},
          {"ts", d.ts_ms}};
}

Decision undecision(const json::object& o) {
  Decision d;
  d.source = o.at("source").as_string();
  d.id = o.at("id").as_string();
  d.question = o.at("question").as_string();
  d.recommendation = o.at("recommendation").as_string();
  for (const auto& opt : o.at("options").as_array()) d.options.emplace_back(opt.as_string());
  if (!o.at("answer").is_null()) d.answer = std::string(o.at("answer").as_string());
  d.ts_ms = o.at("ts").as_int64();
  return d;
}

std::string text(const json::object& o, const char* key) {
  return std::string(o.at(key).as_string());
}

EventState decode(const json::object& o) {
  EventState s;
  s.event_count = o.at("event_count").as_int64();
  s.retries = o.at("retries").as_int64();
  s.turns = o.at("turns").as_int64();
  s.had_talk = o.at("had_talk").as_bool();
  s.kind_counts = uncounts(o.at("kind_counts"));
  s.tools = uncounts(o.at("tools"));
  s.markers = uncounts(o.at("markers"));
  s.first_prompt = text(o, "first_prompt");
  s.first_prompt_head = text(o, "first_prompt_head");
  s.last_assistant = text(o, "last_assistant");
  s.last_side_assistant = text(o, "last_side_assistant");
  for (const auto& v : o.at("errors").as_array()) {
    const auto& e = v.as_array();
    s.errors.push_back({std::string(e.at(0).as_string()), std::string(e.at(1).as_string()),
                        std::string(e.at(2).as_string()), e.at(3).as_int64(),
                        e.size() > 4 ? std::string(e.at(4).as_string()) : std::string()});
  }
  auto read_steps = [](const json::value& list, std::vector<Step>& out) {
    for (const auto& v : list.as_array()) {
      const auto& e = v.as_array();
      out.push_back({std::string(e.at(0).as_string()), std::string(e.at(1).as_string())});
    }
  };
  read_steps(o.at("steps"), s.steps);
  if (const auto* previous = o.if_contains("previous_steps"))  // states of 1.1 on
    read_steps(*previous, s.previous_steps);
  if (const auto* compacted = o.if_contains("compacted_at_turn"))
    s.compacted_at_turn = compacted->as_int64();
  if (const auto* command = o.if_contains("final_prompt_command"))
    s.final_prompt_command = command->as_bool();
  for (const auto& [id, v] : o.at("calls").as_object()) {
    const auto& e = v.as_array();
    s.calls[std::string(id)] = {std::string(e.at(0).as_string()), unhex(e.at(1))};
  }
  for (const auto& [id, v] : o.at("results").as_object()) s.results[std::string(id)] = v.as_bool();
  for (const auto& v : o.at("failed_calls").as_array()) s.failed_calls.insert(unhex(v));
  for (const auto& v : o.at("decisions").as_array())
    s.decisions.push_back(undecision(v.as_object()));
  for (const auto& [id, v] : o.at("pending_questions").as_object())
    for (const auto& i : v.as_array()) {
      const auto index = static_cast<std::size_t>(i.as_int64());
      if (index >= s.decisions.size())
        throw std::invalid_argument("a pending question names no decision");
      s.pending_questions[std::string(id)].push_back(index);
    }
  if (!o.at("brief_waiting").is_null()) {
    s.brief_waiting = static_cast<std::size_t>(o.at("brief_waiting").as_int64());
    if (*s.brief_waiting >= s.decisions.size())
      throw std::invalid_argument("the waiting brief names no decision");
  }
  return s;
}

}  // namespace

std::string encode_state(const EventState& s) {
  json::array errors, steps, previous_steps, failed, decisions;
  for (const auto& g : s.errors)
    errors.push_back(json::array{g.fingerprint, g.sample, g.tool, g.count, g.call_id});
  for (const auto& step : s.steps) steps.push_back(json::array{step.kind, step.call_id});
  for (const auto& step : s.previous_steps)
    previous_steps.push_back(json::array{step.kind, step.call_id});
  for (uint64_t h : s.failed_calls) failed.push_back(json::value(hex(h)));
  for (const auto& d : s.decisions) decisions.push_back(decision(d));
  json::object calls, results, pending;
  for (const auto& [id, c] : s.calls) calls[id] = json::array{c.kind, hex(c.signature)};
  for (const auto& [id, failed_result] : s.results) results[id] = failed_result;
  for (const auto& [id, list] : s.pending_questions) {
    json::array a;
    for (std::size_t i : list) a.push_back(static_cast<int64_t>(i));
    pending[id] = std::move(a);
  }
  json::object o{
      {"v", kStateVersion},
      {"event_count", s.event_count},
      {"retries", s.retries},
      {"turns", s.turns},
      {"had_talk", s.had_talk},
      {"kind_counts", counts(s.kind_counts)},
      {"tools", counts(s.tools)},
      {"markers", counts(s.markers)},
      {"first_prompt", s.first_prompt},
      {"first_prompt_head", s.first_prompt_head},
      {"last_assistant", s.last_assistant},
      {"last_side_assistant", s.last_side_assistant},
      {"errors", std::move(errors)},
      {"steps", std::move(steps)},
      {"previous_steps", std::move(previous_steps)},
      {"compacted_at_turn", s.compacted_at_turn},
      {"final_prompt_command", s.final_prompt_command},
      {"calls", std::move(calls)},
      {"results", std::move(results)},
      {"failed_calls", std::move(failed)},
      {"decisions", std::move(decisions)},
      {"pending_questions", std::move(pending)},
      {"brief_waiting", s.brief_waiting ? json::value(static_cast<int64_t>(*s.brief_waiting))
                                        : json::value(nullptr)}};
  return json::serialize(o);
}

EventState decode_state(std::string_view bytes) {
  boost::system::error_code ec;
  const json::value doc = json::parse(bytes, ec);
  if (ec || !doc.is_object()) throw std::invalid_argument("the saved state is not a JSON object");
  const auto* version = doc.as_object().if_contains("v");
  if (!version || !version->is_int64() || version->as_int64() != kStateVersion)
    throw std::invalid_argument("the saved state has a version this session_digest does not know");
  try {
    return decode(doc.as_object());
  } catch (const std::exception& e) {  // a missing key or a value of the wrong type
    throw std::invalid_argument(std::string("the saved state is malformed: ") + e.what());
  }
}

}  // namespace session_digest
