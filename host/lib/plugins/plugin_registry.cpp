#include "plugins/plugin_registry.hpp"

#define BOOST_DLL_USE_STD_FS
#include <boost/dll/library_info.hpp>
#include <boost/dll/shared_library.hpp>

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <regex>

namespace helix {
namespace dll = boost::dll;

struct PluginRegistry::Libraries {
  std::vector<dll::shared_library> items;
};

PluginRegistry::PluginRegistry() : libraries_(std::make_unique<Libraries>()) {}
PluginRegistry::~PluginRegistry() = default;

namespace {

bool is_plugin_file_name(const std::string& name) {
  return name.starts_with("libhelix_") && name.ends_with(".so");
}

bool valid_name(const char* s) {
  static const std::regex pattern("[a-z0-9_-]{1,64}");
  return s && std::regex_match(s, pattern);
}

// Why an adapter's function table cannot be used, or "" when it can.
std::string adapter_table_problem(const helix_adapter_vtable* vt) {
  if (!vt) return "its adapter function table is NULL";
  if (vt->struct_size < sizeof(helix_adapter_vtable))
    return fmt::format("its adapter table is {} bytes, smaller than ABI {}.{} requires ({})",
                       vt->struct_size, HELIX_ABI_MAJOR, HELIX_ABI_MINOR,
                       sizeof(helix_adapter_vtable));
  if (!valid_name(vt->flavor)) return "its flavor is missing or not [a-z0-9_-]+";
  if (!vt->patterns || !vt->patterns[0].glob) return "it declares no source patterns";
  if (!vt->create || !vt->destroy || !vt->probe || !vt->parse)
    return "one of its required callbacks (create, destroy, probe, parse) is NULL";
  return {};
}

// Why a digester's function table cannot be used, or "" when it can.
std::string digester_table_problem(const helix_digester_vtable* vt) {
  if (!vt) return "its digester function table is NULL";
  // ABI 1.1 tables end before resume_session (ABI 1.2); readers check struct_size for it.
  constexpr std::size_t kMinimum = offsetof(helix_digester_vtable, resume_session);
  if (vt->struct_size < kMinimum)
    return fmt::format("its digester table is {} bytes, smaller than ABI {}.1 requires ({})",
                       vt->struct_size, HELIX_ABI_MAJOR, kMinimum);
  if (!vt->create || !vt->destroy || !vt->begin_session || !vt->event || !vt->usage ||
      !vt->end_session)
    return "one of its required callbacks (create, destroy, begin_session, event, usage, "
           "end_session) is NULL";
  return {};
}

// Why someone other than its owner (the user running helix-host, or root) could replace the
// code in `path`, or "" when nobody else can.
std::string changeable_by_others(const std::filesystem::path& path, const char* what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return fmt::format("cannot check the {} {}: {}", what, path.string(), std::strerror(errno));
  const auto mode = static_cast<unsigned>(st.st_mode & 07777);
  if (st.st_uid != 0 && st.st_uid != ::geteuid())
    return fmt::format(
        "the {} {} belongs to uid {}, neither this user (uid {}) nor root, so "
        "another user could change the code helix-host runs; have it owned by "
        "you or root (chown)",
        what, path.string(), st.st_uid, ::geteuid());
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return fmt::format(
        "the {} {} is writable by {} (mode {:04o}), so another user could change "
        "the code helix-host runs; fix it with: chmod go-w {}",
        what, path.string(), st.st_mode & S_IWOTH ? "all users" : "its group", mode, path.string());
  return {};
}

}  // namespace

void PluginRegistry::load_directory(const std::filesystem::path& configured) {
  // Everything below works on canonical absolute paths: neither the working directory, nor a
  // symbolic link, nor the loader's search path (LD_LIBRARY_PATH) decides which file loads.
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::canonical(configured, ec);
  if (ec || !std::filesystem::is_directory(dir, ec)) {
    refuse(configured,
           "plugin directory does not exist or is not a directory; pass an existing "
           "directory with --plugins or set [plugins] dirs in the configuration");
    return;
  }
  if (auto problem = changeable_by_others(dir, "plugin directory"); !problem.empty())
    return refuse(dir, problem);
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.is_regular_file() && is_plugin_file_name(entry.path().filename().string()))
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    const std::filesystem::path real = std::filesystem::canonical(file, ec);  // a link's target
    std::string problem = ec ? fmt::format("it cannot be resolved: {}", ec.message())
                             : changeable_by_others(real, "plugin file");
    if (problem.empty() && real.parent_path() != dir)
      problem = changeable_by_others(real.parent_path(), "directory of the plugin file");
    if (!problem.empty()) {
      refuse(file, problem);
      continue;
    }
    load_file(real);
  }
}

void PluginRegistry::refuse(const std::filesystem::path& file, std::string reason) {
  refused_.push_back({file, std::move(reason)});
}

void PluginRegistry::load_file(const std::filesystem::path& file) {
  // Check for the entry symbol without running any of the library's code.
  try {
    dll::library_info info(file);
    auto symbols = info.symbols();
    if (std::find(symbols.begin(), symbols.end(), HELIX_ENTRY_SYMBOL) == symbols.end())
      return refuse(file, fmt::format("it does not export {}, so it is not a Helix plugin; "
                                      "rebuild it with the Helix SDK or remove it",
                                      HELIX_ENTRY_SYMBOL));
  } catch (const std::exception& e) {
    return refuse(file, fmt::format("it is not a readable shared library ({})", e.what()));
  }

  std::error_code ec;
  dll::shared_library lib(file, ec, dll::load_mode::rtld_now | dll::load_mode::rtld_local);
  if (ec) return refuse(file, fmt::format("it cannot be loaded: {}", ec.message()));

  using QueryFn = const helix_plugin_descriptor*(uint32_t, uint32_t);
  const helix_plugin_descriptor* d =
      lib.get<QueryFn>(HELIX_ENTRY_SYMBOL)(HELIX_ABI_MAJOR, HELIX_ABI_MINOR);
  if (!d) return refuse(file, "its helix_plugin_query returned NULL (it declined this host)");

  if (d->abi_major != HELIX_ABI_MAJOR)
    return refuse(
        file,
        fmt::format(
            "built for Helix plugin ABI {}.{}, this helix-host supports ABI {}.0-{}.{} (major "
            "versions differ); rebuild the plugin with HelixSDK {}.x or use a matching helix-host",
            d->abi_major, d->abi_minor, HELIX_ABI_MAJOR, HELIX_ABI_MAJOR, HELIX_ABI_MINOR,
            HELIX_ABI_MAJOR));
  if (d->abi_minor > HELIX_ABI_MINOR)
    return refuse(
        file,
        fmt::format("built for Helix plugin ABI {}.{}, newer than this helix-host's {}.{}; upgrade "
                    "helix-host or rebuild the plugin against HelixSDK {}.{}",
                    d->abi_major, d->abi_minor, HELIX_ABI_MAJOR, HELIX_ABI_MINOR, HELIX_ABI_MAJOR,
                    HELIX_ABI_MINOR));
  if (d->struct_size < sizeof(helix_plugin_descriptor))
    return refuse(file, fmt::format("its descriptor is {} bytes, smaller than ABI {}.{} requires",
                                    d->struct_size, HELIX_ABI_MAJOR, HELIX_ABI_MINOR));
  if (!valid_name(d->name))
    return refuse(file, "its name is missing or not [a-z0-9_-]+ (at most 64 characters)");
  if (const PluginInfo* other = find(d->name))
    return refuse(file, fmt::format("its name '{}' is already taken by {}; remove one of the "
                                    "two from the plugin directories",
                                    d->name, other->path.string()));

  PluginInfo info;
  info.name = d->name;
  info.version = d->version ? d->version : "";
  info.description = d->description ? d->description : "";
  info.path = file;
  info.abi_major = d->abi_major;
  info.abi_minor = d->abi_minor;
  if (d->kind == HELIX_KIND_ADAPTER) {
    info.kind = "adapter";
    info.adapter = static_cast<const helix_adapter_vtable*>(d->vtable);
    if (auto problem = adapter_table_problem(info.adapter); !problem.empty())
      return refuse(file, problem);
  } else if (d->kind == HELIX_KIND_DIGESTER && d->abi_minor >= 1) {
    info.kind = "digester";
    info.digester = static_cast<const helix_digester_vtable*>(d->vtable);
    if (auto problem = digester_table_problem(info.digester); !problem.empty())
      return refuse(file, problem);
  } else {
    return refuse(file, fmt::format("its kind {} is not a plugin kind this helix-host runs "
                                    "(adapter = {}, digester = {} from ABI 1.1)",
                                    d->kind, HELIX_KIND_ADAPTER, HELIX_KIND_DIGESTER));
  }
  libraries_->items.push_back(std::move(lib));
  loaded_.push_back(std::move(info));
}

std::vector<const PluginInfo*> PluginRegistry::adapters() const {
  std::vector<const PluginInfo*> out;
  for (const auto& p : loaded_)
    if (p.adapter) out.push_back(&p);
  return out;
}

std::vector<const PluginInfo*> PluginRegistry::digesters() const {
  std::vector<const PluginInfo*> out;
  for (const auto& p : loaded_)
    if (p.digester) out.push_back(&p);
  return out;
}

const PluginInfo* PluginRegistry::find(std::string_view name) const {
  for (const auto& p : loaded_)
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace helix
