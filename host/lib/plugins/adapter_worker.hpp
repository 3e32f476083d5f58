// An adapter run in a worker process: a fork of the host made when the plugin is first needed,
// which creates the adapter and then answers probe and parse calls over a socket. A call that
// does not come back within the time limit kills the worker; one that crashes it, or outgrows
// its memory limit (RLIMIT_AS above what it inherited), throws PluginFault. The next call starts
// a fresh worker. The fork keeps the loaded plugin, its configuration and the redaction rules
// without an exec; the child does nothing but parse (no store, no other thread).
#pragma once

#include "plugins/adapter_runner.hpp"

#include <sys/types.h>

namespace helix {

class AdapterWorker final : public AdapterRunner {
 public:
  AdapterWorker(const PluginInfo& plugin, std::string_view config_json, const Redactor* redactor,
                const IsolationPolicy& limits);
  ~AdapterWorker() override;
  AdapterWorker(const AdapterWorker&) = delete;
  AdapterWorker& operator=(const AdapterWorker&) = delete;

  const PluginInfo& plugin() const override { return plugin_; }
  int probe(std::string_view path, std::string_view head, uint64_t size) const override;
  void parse(std::string_view path, uint32_t layout, uint64_t base_offset, std::string_view data,
             std::string_view state, RecordBatch& batch) const override;

 private:
  std::string call(const std::string& request) const;
  void start() const;
  [[noreturn]] void serve(int fd) const;
  // Kills the worker (when it still runs) and says how it ended.
  std::string stop(bool kill_it) const;

  const PluginInfo& plugin_;
  std::string config_json_;
  const Redactor* redactor_;
  IsolationPolicy limits_;
  mutable pid_t pid_ = -1;
  mutable int fd_ = -1;
};

}  // namespace helix
