// session_digest: the default digester. It turns one stored session into the stable digest of
// the design document §11.2 (plus cost detail, KeiSeiKit markers, decisions and task_ref); the
// rules are documented in docs/digest.md.
#include "decisions.hpp"
#include "signals.hpp"
#include "state.hpp"

#include <helix/digester.hpp>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace session_digest {
namespace json = boost::json;

constexpr int kDigestSchemaVersion = 1;
constexpr std::size_t kSnippetBytes = 300;
constexpr std::size_t kMaxErrorSnippets = 20;

std::string iso8601(int64_t ms) {
  if (ms <= 0) return {};
  const std::chrono::sys_time<std::chrono::milliseconds> t{std::chrono::milliseconds(ms)};
  const auto day = std::chrono::floor<std::chrono::days>(t);
  const std::chrono::year_month_day ymd{day};
  const std::chrono::hh_mm_ss hms{t - day};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ",
                static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                static_cast<unsigned>(ymd.day()), static_cast<int>(hms.hours().count()),
                static_cast<int>(hms.minutes().count()), static_cast<int>(hms.seconds().count()),
                static_cast<int>(hms.subseconds().count()));
  return buf;
}

json::value text_or_null(const std::string& s) {
  return s.empty() ? json::value(nullptr) : json::value(s);
}

bool is_call(std::string_view kind) {
  return kind == "tool_call" || kind == "test_run" || kind == "edit";
}

struct UsageDay {
  int64_t calls = 0, input = 0, output = 0, cache_read = 0, cache_creation = 0, reasoning = 0;
};

class SessionDigest final : public helix::Digester {
 public:
  void configure(std::string_view config_json) override {
    auto doc = json::parse(config_json);
    if (!doc.is_object()) throw std::invalid_argument("the configuration must be a table");
    for (const auto& [key, value] : doc.get_object()) {
      if (key == "prices") {
        throw std::invalid_argument(
            "prices are the host's now, not session_digest's: remove [digesters.session_digest."
            "prices] and give a price file to 'helix-host prices import FILE' (docs/operations.md, "
            "Prices)");
      } else if (key == "task_ref_branch_patterns") {
        branch_patterns_ = patterns(value, key);
      } else if (key == "task_ref_prompt_patterns") {
        prompt_patterns_ = patterns(value, key);
      } else {
        throw std::invalid_argument(
            "unknown setting '" + std::string(key) +
            "' (session_digest knows task_ref_branch_patterns, task_ref_prompt_patterns)");
      }
    }
  }

  void begin(const helix::DigestSession& s) override {
    st_ = State{};
    set_session(s);
  }

  // Usage is streamed whole again, so only the event state comes back.
  void resume(const helix::DigestSession& s, std::string_view state) override {
    st_ = State{};
    set_session(s);
    st_.ev = decode_state(state);
  }

  std::string save_state() const override { return encode_state(st_.ev); }

  void event(const helix::Event& e) override {
    const std::string kind(e.kind);
    const bool side = (e.flags & HELIX_EVENT_SIDECHAIN) != 0;
    auto& ev = st_.ev;
    ++ev.event_count;
    ++ev.kind_counts[kind];
    if (is_call(kind)) on_call(e);
    if (kind == "error") on_error(e);
    if (kind == "tool_result" || kind == "error")
      for (auto c : text_classes(e.text)) ++ev.markers[std::string(c)];
    if (kind == "retry") ++ev.retries;
    if (kind == "human_intervention") {
      ++ev.markers["human_intervention"];
      if (is_permission_refusal(e.summary)) ++ev.markers["permission_denied"];
    }
    if (kind == "lifecycle" && !side && e.summary.starts_with("context compacted"))
      ev.compacted_at_turn = ev.turns;
    if (kind == "user_msg" && !side) on_prompt(e);
    if (kind == "assistant_msg") on_answer(e, side);
    if ((kind == "tool_result" || kind == "error") && !e.call_id.empty()) on_result(e, kind);
    if (!side && kind != "lifecycle" && kind != "other" && kind != "thinking") {
      if (kind == "user_msg") {  // a new turn: the outcome rules look at the final one only
        ev.previous_steps = std::move(ev.steps);
        ev.steps.clear();
        ev.results.clear();
        ++ev.turns;
        ev.final_prompt_command = is_slash_command(e.text.empty() ? e.summary : e.text);
      }
      ev.had_talk = ev.had_talk || kind == "user_msg" || kind == "assistant_msg";
      ev.steps.push_back({kind, std::string(e.call_id)});
    }
  }

  void usage(const helix::Usage& u) override {
    const std::string day = iso8601(u.ts_ms > 0 ? u.ts_ms : st_.started_).substr(0, 10);
    auto& d = st_.days_[{day.empty() ? "unknown" : day, std::string(u.model)}];
    ++d.calls;
    d.input += u.input_tokens;
    d.output += u.output_tokens;
    d.cache_read += u.cache_read_tokens;
    d.cache_creation += u.cache_creation_tokens;
    d.reasoning += u.reasoning_tokens;
  }

  std::string end() override {
    json::object o;
    o["session_uid"] = st_.uid_;
    o["flavor"] = st_.flavor_;
    o["repo"] = text_or_null(st_.repo_);
    o["domain"] = text_or_null(st_.domain_);
    o["model"] = text_or_null(st_.model_);
    o["started_at"] = text_or_null(iso8601(st_.started_));
    o["ended_at"] = text_or_null(iso8601(st_.ended_));
    o["outcome"] = outcome();
    o["cost"] = cost();
    json::object tools;
    for (const auto& [tool, n] : st_.ev.tools) tools[tool] = n;
    o["tool_histogram"] = std::move(tools);
    o["event_count"] = st_.ev.event_count;
    json::object kinds;
    for (const auto& [kind, n] : st_.ev.kind_counts) kinds[kind] = n;
    o["kind_counts"] = std::move(kinds);
    json::object markers;
    for (const auto& [name, n] : st_.ev.markers) markers[name] = n;
    o["markers"] = std::move(markers);
    o["first_prompt"] = text_or_null(st_.ev.first_prompt);
    o["last_assistant"] = text_or_null(st_.ev.last_assistant.empty() ? st_.ev.last_side_assistant
                                                                     : st_.ev.last_assistant);
    json::array errors;
    for (const auto& g : st_.ev.errors)
      errors.push_back(json::object{{"fingerprint", g.fingerprint},
                                    {"sample", g.sample},
                                    {"count", g.count},
                                    {"tool", text_or_null(g.tool)}});
    o["error_snippets"] = std::move(errors);
    o["decisions"] = decisions();
    o["task_ref"] = text_or_null(task_ref());
    o["usage_by_day"] = usage_by_day();
    o["schema_version"] = kDigestSchemaVersion;
    return json::serialize(o);
  }

 private:
  void set_session(const helix::DigestSession& s) {
    st_.uid_ = s.session_uid;
    st_.flavor_ = s.flavor;
    st_.repo_ = s.repo;
    st_.domain_ = s.domain;
    st_.model_ = s.model;
    st_.branch_ = s.git_branch;
    st_.started_ = s.started_at_ms;
    st_.ended_ = s.ended_at_ms;
  }

  static std::vector<std::regex> patterns(const json::value& v, std::string_view key) {
    if (!v.is_array())
      throw std::invalid_argument(std::string(key) + " must be an array of regular expressions");
    std::vector<std::regex> out;
    for (const auto& p : v.get_array()) {
      if (!p.is_string()) throw std::invalid_argument(std::string(key) + " must hold strings");
      try {
        out.emplace_back(std::string(p.get_string()), std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        throw std::invalid_argument(std::string(key) + ": '" + std::string(p.get_string()) +
                                    "' is not a regular expression: " + e.what());
      }
    }
    return out;
  }

  void on_call(const helix::Event& e) {
    const std::string tool = e.tool.empty() ? std::string("(unnamed)") : std::string(e.tool);
    ++st_.ev.tools[tool];
    const uint64_t signature = fnv1a64(e.text, fnv1a64("\n", fnv1a64(tool)));
    if (st_.ev.failed_calls.count(signature))
      ++st_.ev.retries;  // the same call again after it failed
    if (!e.call_id.empty()) {
      st_.ev.calls[std::string(e.call_id)] = {std::string(e.kind), signature};
      if (e.tool == "AskUserQuestion")
        for (auto& d : ask_user_questions(e.text)) {
          d.ts_ms = e.ts_ms;
          st_.ev.pending_questions[std::string(e.call_id)].push_back(st_.ev.decisions.size());
          st_.ev.decisions.push_back(std::move(d));
        }
    }
  }

  void on_result(const helix::Event& e, const std::string& kind) {
    auto call = st_.ev.calls.find(std::string(e.call_id));
    if (call == st_.ev.calls.end())
      return;  // unknown, or its result came already: the first counts
    const bool failed = kind == "error";
    if (failed) st_.ev.failed_calls.insert(call->second.signature);
    if (call->second.kind == "test_run") {
      ++st_.ev.markers["test_runs"];
      if (failed) ++st_.ev.markers["test_failures"];
    }
    st_.ev.calls.erase(call);
    st_.ev.results[std::string(e.call_id)] = failed;
    auto pending = st_.ev.pending_questions.find(std::string(e.call_id));
    if (pending == st_.ev.pending_questions.end()) return;
    const auto answers = failed ? std::map<std::string, std::string>{} : ask_user_answers(e.text);
    for (std::size_t i : pending->second) {
      auto a = answers.find(st_.ev.decisions[i].question);
      if (a != answers.end()) st_.ev.decisions[i].answer = a->second;
    }
    st_.ev.pending_questions.erase(pending);
  }

  // One snippet per failing call (its errors counted together); errors of no call (API
  // errors) group by fingerprint.
  void on_error(const helix::Event& e) {
    const std::string tool(e.tool);
    ++st_.ev.markers[tool.empty() ? "api_error" : "tool_error"];
    std::string_view text = e.text.empty() ? e.summary : e.text;
    const std::string fp = error_fingerprint(tool, text);
    const std::string call(e.call_id);
    for (auto& g : st_.ev.errors)
      if (call.empty() ? g.call_id.empty() && g.fingerprint == fp : g.call_id == call)
        return void(++g.count);
    if (st_.ev.errors.size() < kMaxErrorSnippets)
      st_.ev.errors.push_back({fp, snippet(text, kSnippetBytes), tool, 1, call});
  }

  // A final turn that is only a slash command compacting the context (/compact: its compaction
  // event just before or after the prompt) is neutral: the turn before it is judged.
  const std::vector<Step>& judged_steps() const {
    const auto& ev = st_.ev;
    const bool only_prompt = std::all_of(ev.steps.begin(), ev.steps.end(),
                                         [](const Step& s) { return s.kind == "user_msg"; });
    const bool compacted = ev.compacted_at_turn >= 0 && ev.compacted_at_turn >= ev.turns - 1;
    if (only_prompt && ev.final_prompt_command && compacted && !ev.previous_steps.empty())
      return ev.previous_steps;
    return ev.steps;
  }

  static bool is_slash_command(std::string_view prompt) {
    while (!prompt.empty() && std::isspace(static_cast<unsigned char>(prompt.front())))
      prompt.remove_prefix(1);
    return prompt.starts_with("/") || prompt.starts_with("<command-name>/") ||
           prompt.starts_with("<command-message>");
  }

  void on_prompt(const helix::Event& e) {
    std::string_view text = e.text.empty() ? e.summary : e.text;
    if (st_.ev.first_prompt.empty()) {
      st_.ev.first_prompt = snippet(text, kSnippetBytes);
      st_.ev.first_prompt_head = std::string(text.substr(0, 4096));
    }
    if (is_user_correction(text)) ++st_.ev.markers["user_correction"];
    if (st_.ev.brief_waiting) {
      st_.ev.decisions[*st_.ev.brief_waiting].answer = snippet(text, kSnippetBytes);
      st_.ev.brief_waiting.reset();
    }
  }

  void on_answer(const helix::Event& e, bool side) {
    std::string_view text = e.text.empty() ? e.summary : e.text;
    (side ? st_.ev.last_side_assistant : st_.ev.last_assistant) = snippet(text, kSnippetBytes);
    if (side) return;
    if (auto brief = decision_brief(text)) {
      brief->ts_ms = e.ts_ms;
      st_.ev.brief_waiting = st_.ev.decisions.size();
      st_.ev.decisions.push_back(std::move(*brief));
    }
  }

  // The outcome rules (docs/digest.md), over the main conversation (no sidechains).
  std::string outcome() const {
    if (!st_.ev.had_talk) return "unknown";  // then steps is not empty either
    const std::vector<Step>& steps = judged_steps();
    if (&steps != &st_.ev.steps) return outcome_of_answered_turn(steps);
    const Step& last = steps.back();
    if (last.kind == "user_msg" || last.kind == "human_intervention") return "abandoned";
    if (is_call(last.kind) && !st_.ev.results.count(last.call_id)) return "abandoned";
    return outcome_of_answered_turn(steps);
  }

  // Rules 4-7 over a turn's steps. The results of an earlier turn's calls are not kept: a turn
  // judged after a compaction counts its errors and answers only.
  std::string outcome_of_answered_turn(const std::vector<Step>& steps) const {
    int64_t last_error = -1, last_answer = -1, last_test = -1, last_ok = -1;
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const auto& s = steps[i];
      if (s.kind == "error") last_error = static_cast<int64_t>(i);
      if (s.kind == "tool_result") last_ok = static_cast<int64_t>(i);
      if (s.kind == "assistant_msg" || s.kind == "completion")
        last_answer = static_cast<int64_t>(i);
      if (s.kind == "test_run" && st_.ev.results.count(s.call_id))
        last_test = static_cast<int64_t>(i);
    }
    if (last_error > std::max(last_answer, last_ok)) return "fail";  // nothing worked after it
    if (last_test >= 0 && st_.ev.results.at(steps[static_cast<std::size_t>(last_test)].call_id))
      return "fail";
    return last_answer >= 0 ? "success" : "unknown";
  }

  json::object cost() const {
    UsageDay t;
    for (const auto& [key, d] : st_.days_) {
      t.input += d.input;
      t.output += d.output;
      t.cache_read += d.cache_read;
      t.cache_creation += d.cache_creation;
      t.reasoning += d.reasoning;
    }
    const int64_t turns = st_.ev.turns;
    // No prices here: the host prices the usage ledger and puts cost_usd, prices_as_of and
    // unpriced_models in when it shows the digest (docs/sdk.md, what the host reads).
    return json::object{
        {"input_tokens", t.input},
        {"output_tokens", t.output},
        {"cache_tokens", t.cache_read + t.cache_creation},
        {"wall_clock_s",
         st_.started_ > 0 && st_.ended_ >= st_.started_ ? (st_.ended_ - st_.started_) / 1000 : 0},
        {"turns", turns},
        {"retries", st_.ev.retries},
        {"cache_read_tokens", t.cache_read},
        {"cache_creation_tokens", t.cache_creation},
        {"reasoning_tokens", t.reasoning}};
  }

  json::array decisions() const {
    json::array out;
    for (const auto& d : st_.ev.decisions) {
      json::array options;
      for (const auto& opt : d.options) options.push_back(json::value(opt));
      out.push_back(
          json::object{{"source", d.source},
                       {"id", text_or_null(d.id)},
                       {"question", d.question},
                       {"options", std::move(options)},
                       {"recommendation", text_or_null(d.recommendation)},
                       {"answer", d.answer ? json::value(*d.answer) : json::value(nullptr)},
                       {"at", text_or_null(iso8601(d.ts_ms))}});
    }
    return out;
  }

  // The first match of the branch patterns over the branch, then of the prompt patterns over
  // the first prompt: its first capture group when the pattern has one, else the whole match.
  std::string task_ref() const {
    auto first_match = [](const std::vector<std::regex>& list, const std::string& text) {
      std::smatch m;
      for (const auto& re : list)
        if (!text.empty() && std::regex_search(text, m, re))
          return m.size() > 1 && m[1].matched ? m[1].str() : m[0].str();
      return std::string();
    };
    std::string ref = first_match(branch_patterns_, st_.branch_);
    return ref.empty() ? first_match(prompt_patterns_, st_.ev.first_prompt_head) : ref;
  }

  json::array usage_by_day() const {
    json::array out;
    for (const auto& [key, d] : st_.days_)
      out.push_back(json::object{{"day", key.first},
                                 {"model", key.second},
                                 {"calls", d.calls},
                                 {"input_tokens", d.input},
                                 {"output_tokens", d.output},
                                 {"cache_read_tokens", d.cache_read},
                                 {"cache_creation_tokens", d.cache_creation},
                                 {"reasoning_tokens", d.reasoning}});
    return out;
  }

  // Configuration (kept across sessions).
  std::vector<std::regex> branch_patterns_{
      std::regex("[A-Z][A-Z0-9]+-WP-[0-9]+(?:-T[0-9]+)?"),
      std::regex("(?:^|[/_-])([A-Z][A-Z0-9]{1,9}-[0-9]{1,6})(?![0-9])")};
  std::vector<std::regex> prompt_patterns_{std::regex("[A-Z][A-Z0-9]+-WP-[0-9]+(?:-T[0-9]+)?")};

  // Per session: reset by begin() and resume(). `ev` is what the events taught (resumable);
  // the rest comes from the session row and from usage, both streamed whole every time.
  struct State {
    std::string uid_, flavor_, repo_, domain_, model_, branch_;
    int64_t started_ = 0, ended_ = 0;
    EventState ev;
    std::map<std::pair<std::string, std::string>, UsageDay> days_;  // (day, model)
  } st_;
};

}  // namespace session_digest

HELIX_DIGESTER(session_digest::SessionDigest, .name = "session_digest", .version = "1.2.0",
               .description = "the default session digest (design document §11.2)")
