// Discovers, validates and keeps loaded the plugin libraries of the configured directories.
#pragma once

#include <helix/helix_plugin.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace helix {

class OwnedFd;

// A loaded plugin. The tables and extensions are the host's zero-filled copies of what the
// plugin declared (read through struct_size); the pointers inside them are static data of the
// plugin, valid while the registry lives.
struct PluginInfo {
  std::string name, version, description, kind;
  std::filesystem::path path;
  uint32_t abi_major = 0, abi_minor = 0;  // abi_minor: the minor the plugin needs
  // Shipped with this helix-host: loaded from its own plugin directory (<prefix>/lib/helix/
  // plugins beside bin/helix-host, or the build tree's). [plugins] isolation = "third-party"
  // runs every other adapter in a worker process.
  bool first_party = false;
  std::optional<helix_adapter_vtable> adapter;    // set for adapters
  std::optional<helix_digester_vtable> digester;  // set for digesters
  // Adapter extensions (ABI 1.3), when the plugin offers them.
  std::optional<helix_resume_ext> resume;
  std::optional<helix_hook_ext> hook;
  std::string reparse_below;  // helix.reparse/1: sources parsed by older versions are re-parsed
};

struct RefusedPlugin {
  std::filesystem::path path;
  std::string reason;  // one line an administrator can act on
};

// The plugin file as it is now ("<version> <size> <mtime_ns>"): what a quarantine remembers,
// so that a replaced plugin tries the source again.
std::string plugin_signature(const PluginInfo& plugin);

// True when a source last parsed by version `parsed_by` of this adapter is to be parsed again:
// the adapter declares (helix.reparse/1) that output of versions below reparse_below is stale.
bool reparse_worthy(std::string_view parsed_by, const PluginInfo& plugin);

class PluginRegistry {
 public:
  PluginRegistry();
  ~PluginRegistry();
  PluginRegistry(const PluginRegistry&) = delete;
  PluginRegistry& operator=(const PluginRegistry&) = delete;

  // Loads every libhelix_*.so directly inside `dir`, in name order. Bad plugins are refused
  // (see refused()) and the others still load. A missing directory is itself a refusal, and so
  // is a directory, plugin file or folder above them that users other than its owner (you or
  // root) could change. Each is opened and judged by descriptor and loaded through that same
  // descriptor (trusted_open.hpp): no file swapped in after the check is loaded.
  void load_directory(const std::filesystem::path& dir);
  // Loads one plugin file with the same checks (helix-plugin-check uses it).
  void load_plugin_file(const std::filesystem::path& file);

  const std::vector<PluginInfo>& loaded() const { return loaded_; }
  const std::vector<RefusedPlugin>& refused() const { return refused_; }
  std::vector<const PluginInfo*> adapters() const;
  std::vector<const PluginInfo*> digesters() const;
  const PluginInfo* find(std::string_view name) const;
  // What the adapters of `flavor` declare about its hook events (helix.hook/1), or nullptr.
  const helix_hook_ext* hook_events(std::string_view flavor) const;

 private:
  // Opens entry `file` of the checked directory `dir_fd` by descriptor, judges it and loads it.
  void load_entry(int dir_fd, const std::filesystem::path& file);
  // Loads the judged plugin file open as `fd` (`file` names it) through that descriptor.
  void load_file(const std::filesystem::path& file, OwnedFd fd);
  void refuse(const std::filesystem::path& file, std::string reason);

  struct Libraries;  // the loaded shared libraries; unloaded only when the registry dies
  std::unique_ptr<Libraries> libraries_;
  std::vector<PluginInfo> loaded_;
  std::vector<RefusedPlugin> refused_;
};

}  // namespace helix
