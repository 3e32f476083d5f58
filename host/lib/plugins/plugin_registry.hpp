// Discovers, validates and keeps loaded the plugin libraries of the configured directories.
#pragma once

#include <helix/helix_plugin.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace helix {

struct PluginInfo {
  std::string name, version, description, kind;
  std::filesystem::path path;
  uint32_t abi_major = 0, abi_minor = 0;
  const helix_adapter_vtable* adapter = nullptr;    // set for adapters; static in the plugin
  const helix_digester_vtable* digester = nullptr;  // set for digesters; static in the plugin
};

struct RefusedPlugin {
  std::filesystem::path path;
  std::string reason;  // one line an administrator can act on
};

class PluginRegistry {
 public:
  PluginRegistry();
  ~PluginRegistry();
  PluginRegistry(const PluginRegistry&) = delete;
  PluginRegistry& operator=(const PluginRegistry&) = delete;

  // Loads every libhelix_*.so directly inside `dir`, in name order. Bad plugins are refused
  // (see refused()) and the others still load. A missing directory is itself a refusal, and so
  // is a directory or plugin file that users other than its owner (you or root) could change.
  void load_directory(const std::filesystem::path& dir);

  const std::vector<PluginInfo>& loaded() const { return loaded_; }
  const std::vector<RefusedPlugin>& refused() const { return refused_; }
  std::vector<const PluginInfo*> adapters() const;
  std::vector<const PluginInfo*> digesters() const;
  const PluginInfo* find(std::string_view name) const;

 private:
  void load_file(const std::filesystem::path& file);
  void refuse(const std::filesystem::path& file, std::string reason);

  struct Libraries;  // the loaded shared libraries; unloaded only when the registry dies
  std::unique_ptr<Libraries> libraries_;
  std::vector<PluginInfo> loaded_;
  std::vector<RefusedPlugin> refused_;
};

}  // namespace helix
