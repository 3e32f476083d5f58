// Test support for the fleet suites: one throwaway PostgreSQL cluster per suite, migrated by the
// real `helix-host fleet migrate` and granted by the SQL `helix-host fleet grant` prints, and
// hosts: each an agent home swept into a store of its own, with a [fleet] configuration, a
// password file and a host id file of its own, driven through the real helix-host binary.
#pragma once

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <map>
#include <memory>
#include <string>

#include "helix_command.hpp"
#include "host_process.hpp"
#include "pg_cluster.hpp"
#include "temp_dir.hpp"

namespace helix::test {

// A suite's global fixture: the suite exits 77 (skipped) without a PostgreSQL server.
struct SkipWithoutPostgres {
  SkipWithoutPostgres() { skip_without_postgres(); }
};

// The suite's server: started on first use, stopped when the suite ends.
class FleetServer {
 public:
  static FleetServer& get() {
    static FleetServer server;
    return server;
  }

  PgCluster& cluster() { return *cluster_; }

  // Runs `helix-host <args>` as the cluster's superuser (its password from a password file).
  Run admin(const std::string& args) {
    return run_command(
        fmt::format("PGPASSFILE={} XDG_CONFIG_HOME={} {} {} 2>{}", (dir_ / "pgpass").string(),
                    (dir_ / "xdg").string(), HELIX_TEST_HOST_BINARY, args, (dir_ / "err").string()),
        dir_ / "err");
  }

  // Gives `login` (created with `password`) membership of `team`, with the SQL `fleet grant`
  // prints, run as the superuser.
  void add_member(const std::string& team, const std::string& login, const std::string& password) {
    Run grant = admin(fmt::format("fleet grant --team {} --member {}", team, login));
    BOOST_REQUIRE_MESSAGE(grant.exit_code == 0, grant.err);
    auto db = cluster_->superuser();
    db.exec(grant.out);
    db.exec(fmt::format("ALTER ROLE {} PASSWORD {}", pg::quote_identifier(login),
                        pg::quote_literal(password)));
  }

  void add_admin(const std::string& login, const std::string& password) {
    Run grant = admin(fmt::format("fleet grant --admin {}", login));
    BOOST_REQUIRE_MESSAGE(grant.exit_code == 0, grant.err);
    auto db = cluster_->superuser();
    db.exec(grant.out);
    db.exec(fmt::format("ALTER ROLE {} PASSWORD {}", pg::quote_identifier(login),
                        pg::quote_literal(password)));
  }

  // One number from the superuser's view (every team's rows).
  int64_t count(const std::string& sql) { return cluster_->superuser().query(sql).integer(0, 0); }

 private:
  FleetServer() : cluster_(std::make_unique<PgCluster>()) {
    write_file(dir_ / "pgpass",
               cluster_->pgpass_line(PgCluster::kSuperuser, PgCluster::kSuperuserPassword));
    ::chmod((dir_ / "pgpass").c_str(), 0600);
    Run migrate =
        admin("fleet migrate --connection '" + cluster_->conninfo(PgCluster::kSuperuser) + "'");
    if (migrate.exit_code != 0)
      throw std::runtime_error("fleet migrate failed: " + migrate.out + migrate.err);
  }

  TempDir dir_;
  std::unique_ptr<PgCluster> cluster_;
};

// One machine of the fleet.
class FleetHost {
 public:
  // `flavors`: which of the bundled fixtures' flavors this host's agents wrote ("claude",
  // "codex", "grok"); the others' homes are empty.
  FleetHost(const std::string& login, const std::string& password,
            std::initializer_list<const char*> flavors) {
    const std::string make =
        fmt::format("{}/../scripts/make-sample-home {} {} >/dev/null", HELIX_TEST_FIXTURE_DIR "/..",
                    HELIX_TEST_FIXTURE_DIR, (dir_ / "home").string());
    BOOST_REQUIRE(std::system(make.c_str()) == 0);
    std::map<std::string, std::string> vars = {
        {"claude", "CLAUDE_CONFIG_DIR"}, {"codex", "CODEX_HOME"}, {"grok", "GROK_HOME"}};
    for (const auto& [flavor, var] : vars) {
      const bool used =
          std::any_of(flavors.begin(), flavors.end(), [&](const char* f) { return flavor == f; });
      home_env_ += fmt::format("{}={} ", var, (dir_ / (used ? "home/" + flavor : "none")).string());
    }
    credentials(login, password);
  }

  // A host whose agents wrote a generated corpus (helix-corpus, Claude Code only).
  FleetHost(const std::string& login, const std::string& password, int sessions) {
    const std::string corpus = fmt::format(
        "{} --out {} --bytes {}KiB --sessions {} --seed 7 "
        "--mix 100,0,0 >/dev/null",
        HELIX_TEST_CORPUS_BINARY, (dir_ / "home").string(), sessions * 4, sessions);
    BOOST_REQUIRE(std::system(corpus.c_str()) == 0);
    home_env_ = fmt::format(
        "CLAUDE_CONFIG_DIR={0}/home/claude CODEX_HOME={0}/none "
        "GROK_HOME={0}/none ",
        dir_.path().string());
    credentials(login, password);
  }

  // Writes the [fleet] section (plus `extra` lines) of this host's configuration.
  void configure(const std::string& team, const std::string& extra = "") {
    write_file(config_file(),
               fmt::format("[fleet]\nconnection = \"{}\"\npassword_file = \"{}\"\nteam = "
                           "\"{}\"\nhost_id_file = \"{}\"\n{}\n",
                           FleetServer::get().cluster().conninfo(login_),
                           (dir_ / "password").string(), team, (dir_ / "host-id").string(), extra));
  }
  std::filesystem::path config_file() const { return dir_ / "xdg/helix/config.toml"; }

  // helix-host <args> on this host, as its user.
  Run helix(const std::string& args) const {
    return run_helix(env(), dir_ / "store", args, dir_ / "stderr.txt");
  }

  // `helix-host <command>` (no agent homes: push and the reads) as a child process, to kill
  // it or to run several at once.
  std::unique_ptr<HostProcess> start(const std::vector<std::string>& command) const {
    std::filesystem::create_directories(dir_ / "io");
    std::vector<std::string> args{"--plugins", HELIX_TEST_PLUGIN_DIR,
                                  "--store",   (dir_ / "store").string(),
                                  "--config",  config_file().string()};
    args.insert(args.end(), command.begin(), command.end());
    return std::make_unique<HostProcess>(args, dir_ / "io");
  }

  std::string env() const {
    return fmt::format("{}XDG_CONFIG_HOME={} ", home_env_, (dir_ / "xdg").string());
  }
  const TempDir& dir() const { return dir_; }
  const std::string& login() const { return login_; }

  // The host id the first push generated.
  std::string host_id() const { return read_file(dir_ / "host-id").substr(0, 32); }

 private:
  void credentials(const std::string& login, const std::string& password) {
    login_ = login;
    write_file(dir_ / "password", password + "\n");
    ::chmod((dir_ / "password").c_str(), 0600);
  }

  TempDir dir_;
  std::string home_env_, login_;
};

// The totals object of `usage --json` output.
inline boost::json::object usage_totals(const Run& r) {
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return boost::json::parse(r.out).at("totals").as_object();
}

}  // namespace helix::test
