// helix-host export: one session as a readable markdown transcript, a self-contained HTML page,
// or its normalized records as JSON or JSONL; an evicted session exports the digest that remains.
#include <fmt/format.h>

#include <fstream>
#include <iostream>

#include "cli/cmd_recall.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/json_output.hpp"
#include "recall/html_transcript.hpp"
#include "recall/session_json.hpp"
#include "recall/session_view.hpp"
#include "recall/transcript.hpp"
#include "store/digest_store.hpp"
#include "store/store.hpp"

namespace helix {
namespace po = boost::program_options;
namespace {

boost::json::array digests_json(const std::vector<StoredDigest>& digests) {
  boost::json::array out;
  for (const auto& d : digests) {
    boost::system::error_code ec;
    boost::json::value v = boost::json::parse(d.json, ec);
    out.push_back({{"digester", d.digester},
                   {"version", d.version},
                   {"digest", ec ? boost::json::value(d.json) : std::move(v)}});
  }
  return out;
}

std::string render(Store& store, const SessionRow& s, const std::string& format) {
  // Evicted, also when grown since (its events then hold only the growth): the digest, which
  // covers every record, is the session, as `show` prints it.
  const bool evicted = s.evicted_at_ms > 0;
  if (format == "md") {
    if (evicted) return markdown_digest(s, stored_digests(store, s.uid));
    return markdown_transcript(s, store.events(s.uid, /*with_bodies=*/true));
  }
  if (format == "html") {
    const auto costs = session_costs(store);
    const double cost = costs.count(s.uid) ? costs.at(s.uid) : 0.0;
    if (evicted) return html_evicted_session(s, stored_digests(store, s.uid), cost);
    return html_transcript(s, store.events(s.uid, /*with_bodies=*/true), cost);
  }
  boost::json::object session = session_json(s);
  if (format == "json") {
    boost::json::object doc{{"session", session}, {"evicted", evicted}};
    if (evicted) {
      doc["digests"] = digests_json(stored_digests(store, s.uid));
    } else {
      boost::json::array events;
      for (const auto& e : store.events(s.uid, true)) events.push_back(event_json(e, true));
      doc["events"] = std::move(events);
    }
    return to_json(doc) + "\n";
  }
  // jsonl: one record per line, each tagged, so that jq can select by "record".
  session["record"] = "session";
  session["evicted"] = evicted;
  std::string out = to_json(session) + "\n";
  if (evicted) {
    for (auto& d : digests_json(stored_digests(store, s.uid))) {
      d.as_object()["record"] = "digest";
      d.as_object()["session_uid"] = s.uid;
      out += to_json(d) + "\n";
    }
    return out;
  }
  for (const auto& e : store.events(s.uid, true)) {
    boost::json::object o = event_json(e, true);
    o["record"] = "event";
    o["session_uid"] = s.uid;
    out += to_json(o) + "\n";
  }
  return out;
}

}  // namespace

int cmd_export(const Globals& g, const std::vector<std::string>& args) {
  auto vm = parse_command("export", args);
  const std::string format = vm["format"].as<std::string>();
  Config config = load_configuration(g);
  Store store = open_store_for_reading(g, config);
  const auto session = std::make_optional(required_session(store, vm, "export"));
  const std::string text = render(store, *session, format);
  if (!vm.count("out")) {
    std::cout << text;
    return kExitOk;
  }
  const std::string path = vm["out"].as<std::string>();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.flush()) throw std::runtime_error(fmt::format("cannot write the export to {}", path));
  return kExitOk;
}

}  // namespace helix
