// helix-host report --html: the dashboard of a date range and a transcript page for each of its
// sessions, written into one folder that works offline (see report/dashboard.hpp).
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "base/clock.hpp"
#include "base/json_text.hpp"
#include "cli/cmd_recall.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "digest/digest_runner.hpp"
#include "recall/html_page.hpp"
#include "recall/html_transcript.hpp"
#include "recall/session_json.hpp"
#include "recall/transcript.hpp"
#include "report/dashboard.hpp"

namespace helix {
namespace po = boost::program_options;
namespace {

constexpr int64_t kDayMs = 86400000;
constexpr int64_t kDefaultDays = 30;

std::string day_option(const po::variables_map& vm, const char* name, const std::string& fallback) {
  if (!vm.count(name)) return fallback;
  try {
    return iso8601(parse_date(vm[name].as<std::string>())).substr(0, 10);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("--{}: {}", name, e.what()));
  }
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.flush()) throw std::runtime_error(fmt::format("cannot write {}", path.string()));
}

std::string session_page(Store& store, const ReportSession& r) {
  const auto& s = r.session;
  if (s.evicted_at_ms == 0) return html_transcript(s, store.events(s.uid, true), r.cost_usd);
  return html_evicted_session(s, stored_digests(store, s.uid), r.cost_usd);
}

// What was written, for scripts that publish or check it.
boost::json::object written_json(const Dashboard& d, const std::filesystem::path& dir) {
  boost::json::array sessions;
  for (const auto& r : d.sessions)
    sessions.push_back({{"session_uid", r.session.uid},
                        {"title", r.session.title},
                        {"cost_usd", r.cost_usd},
                        {"page", (dir / r.page).string()}});
  boost::json::array unpriced;
  for (const auto& m : d.unpriced_models) unpriced.push_back(boost::json::value(m));
  return {{"since", d.since_day},
          {"until", d.until_day},
          {"index", (dir / "index.html").string()},
          {"sessions", std::move(sessions)},
          {"unpriced_models", std::move(unpriced)}};
}

}  // namespace

int cmd_report(const Globals& g, const std::vector<std::string>& args) {
  auto vm = parse_command("report", args);
  if (!vm.count("html")) throw UsageError("report writes an HTML dashboard: add --html");
  const std::string until = day_option(vm, "until", iso8601(now_ms()).substr(0, 10));
  const std::string since = day_option(
      vm, "since", iso8601(parse_date(until) - (kDefaultDays - 1) * kDayMs).substr(0, 10));
  if (since > until) throw UsageError(fmt::format("--since {} is after --until {}", since, until));
  Config config = load_configuration(g);
  Store store(store_file(g, config), /*read_only=*/true);
  Dashboard d = gather_dashboard(store, since, until, primary_digester(config));

  const std::filesystem::path dir = vm["out"].as<std::string>();
  std::filesystem::create_directories(dir / "sessions");
  for (auto& r : d.sessions) {
    r.page = "sessions/" + session_page_name(r.session.uid);
    write_file(dir / r.page, session_page(store, r));
  }
  write_file(dir / "index.html", html_dashboard(d));
  if (vm.count("json")) {
    std::cout << to_json(written_json(d, dir)) << "\n";
    return kExitOk;
  }
  std::cout << fmt::format("report: {} sessions from {} to {} in {}\n", d.sessions.size(), since,
                           until, (dir / "index.html").string());
  return kExitOk;
}

}  // namespace helix
