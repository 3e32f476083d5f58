#include "decisions.hpp"

#include "signals.hpp"

#include <boost/json.hpp>
#include <cctype>

namespace session_digest {
namespace {

constexpr std::size_t kTextBytes = 300;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string_view strip_markdown(std::string_view s) {
  s = trim(s);
  while (!s.empty() && (s.front() == '#' || s.front() == '*' || s.front() == '>'))
    s = trim(s.substr(1));
  while (!s.empty() && s.back() == '*') s = trim(s.substr(0, s.size() - 1));
  return s;
}

// "D12 — title" (em dash, en dash or hyphen) -> {"D12", "title"}.
std::optional<std::pair<std::string, std::string>> d_line(std::string_view line) {
  line = strip_markdown(line);
  if (line.size() < 3 || line[0] != 'D' || !std::isdigit(static_cast<unsigned char>(line[1])))
    return std::nullopt;
  std::size_t i = 1;
  while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
  std::string id(line.substr(0, i));
  std::string_view rest = trim(line.substr(i));
  for (std::string_view dash : {"\xE2\x80\x94", "\xE2\x80\x93", "-", ":"})
    if (rest.starts_with(dash))
      return std::make_pair(id, std::string(trim(rest.substr(dash.size()))));
  return std::nullopt;
}

// "A) text" -> "A) text"; nullopt for other lines.
std::optional<std::string> option_line(std::string_view line) {
  line = strip_markdown(line);
  if (line.size() >= 3 && std::isupper(static_cast<unsigned char>(line[0])) && line[1] == ')')
    return snippet(line, kTextBytes);
  return std::nullopt;
}

}  // namespace

std::vector<Decision> ask_user_questions(std::string_view input_json) {
  std::vector<Decision> out;
  boost::system::error_code ec;
  auto doc = boost::json::parse(input_json, ec);
  if (ec || !doc.is_object()) return out;
  const auto* questions = doc.get_object().if_contains("questions");
  if (!questions || !questions->is_array()) return out;
  for (const auto& q : questions->get_array()) {
    const auto* o = q.if_object();
    if (!o) continue;
    const auto* text = o->if_contains("question");
    if (!text || !text->is_string()) continue;
    Decision d;
    d.source = "ask_user_question";
    d.question = std::string(text->get_string());
    if (const auto* options = o->if_contains("options"); options && options->is_array())
      for (const auto& opt : options->get_array()) {
        const auto* label = opt.is_object() ? opt.get_object().if_contains("label") : &opt;
        if (label && label->is_string()) d.options.emplace_back(label->get_string());
      }
    out.push_back(std::move(d));
  }
  return out;
}

std::map<std::string, std::string> ask_user_answers(std::string_view text) {
  std::map<std::string, std::string> out;
  std::size_t from = 0;
  for (auto eq = text.find("\"=\""); eq != std::string_view::npos; eq = text.find("\"=\"", from)) {
    // The question opens at the last `"` that follows ": " or ", " before the `"="`.
    std::size_t open = std::string_view::npos;
    for (std::string_view lead : {": \"", ", \""}) {
      auto at = text.rfind(lead, eq);
      if (at != std::string_view::npos && at >= from &&
          (open == std::string_view::npos || at + lead.size() > open))
        open = at + lead.size();
    }
    const std::size_t answer_at = eq + 3;
    std::size_t close = text.size();
    for (std::string_view end : {"\", \"", "\". ", "\"."})
      if (auto at = text.find(end, answer_at); at != std::string_view::npos && at < close)
        close = at;
    if (close == text.size() && !text.empty() && text.back() == '"') close = text.size() - 1;
    if (open != std::string_view::npos && close >= answer_at)
      out[std::string(text.substr(open, eq - open))] =
          std::string(text.substr(answer_at, close - answer_at));
    from = std::max(close, answer_at);
  }
  return out;
}

std::optional<Decision> decision_brief(std::string_view message) {
  Decision d;
  d.source = "decision_brief";
  if (auto at = message.find("<gstack-qid:"); at != std::string_view::npos) {
    auto end = message.find('>', at);
    if (end != std::string_view::npos) d.id = std::string(message.substr(at + 12, end - at - 12));
  }
  std::size_t pos = 0;
  while (pos <= message.size()) {
    auto end = message.find('\n', pos);
    if (end == std::string_view::npos) end = message.size();
    std::string_view line = message.substr(pos, end - pos);
    pos = end + 1;
    if (auto header = d_line(line); header && d.question.empty()) {
      if (d.id.empty()) d.id = header->first;
      d.question = snippet(header->second, kTextBytes);
    } else if (auto option = option_line(line)) {
      d.options.push_back(*option);
    } else if (auto text = strip_markdown(line); text.starts_with("Recommendation:")) {
      d.recommendation = snippet(text.substr(15), kTextBytes);
    }
  }
  const bool marked = message.find("<gstack-qid:") != std::string_view::npos;
  if (!marked && (d.question.empty() || d.options.size() < 2)) return std::nullopt;
  if (d.question.empty()) d.question = snippet(message, kTextBytes);
  return d;
}

}  // namespace session_digest
