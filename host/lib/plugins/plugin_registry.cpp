#include "plugins/plugin_registry.hpp"

#include "base/semver.hpp"
#include "plugins/abi_struct.hpp"

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
#include <fstream>
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

// helix-host's own plugin directory: <prefix>/lib/helix/plugins beside <prefix>/bin, or the
// plugins directory of the build tree this host was built in.
bool is_first_party_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  for (const auto& own : {exe.parent_path().parent_path() / "lib" / "helix" / "plugins",
                          std::filesystem::path(HELIX_BUILD_PLUGIN_DIR)}) {
    if (std::filesystem::equivalent(dir, own, ec)) return true;
  }
  return false;
}

bool has_elf_header(const std::filesystem::path& file) {
  char magic[4] = {};
  std::ifstream in(file, std::ios::binary);
  return in.read(magic, sizeof magic) && std::memcmp(magic,
                                                     "\x7f"
                                                     "ELF",
                                                     4) == 0;
}

// The struct_size a table declares (its first member).
uint32_t declared_size(const void* table) {
  uint32_t size = 0;
  std::memcpy(&size, table, sizeof size);
  return size;
}

// Why an adapter's function table cannot be used, or "" when it can.
std::string adapter_table_problem(const std::optional<helix_adapter_vtable>& vt,
                                  const void* declared) {
  if (!declared) return "its adapter function table is NULL";
  if (!vt)
    return fmt::format("its adapter table is {} bytes, smaller than ABI {}.0 requires ({})",
                       declared_size(declared), HELIX_ABI_MAJOR, HELIX_ADAPTER_VTABLE_SIZE_1_0);
  if (!valid_name(vt->flavor)) return "its flavor is missing or not [a-z0-9_-]+";
  if (!vt->patterns || !vt->patterns[0].glob) return "it declares no source patterns";
  if (!vt->create || !vt->destroy || !vt->probe || !vt->parse)
    return "one of its required callbacks (create, destroy, probe, parse) is NULL";
  return {};
}

// Why a digester's function table cannot be used, or "" when it can.
std::string digester_table_problem(const std::optional<helix_digester_vtable>& vt,
                                   const void* declared) {
  if (!declared) return "its digester function table is NULL";
  // ABI 1.1 tables end before resume_session (ABI 1.2); the copy holds NULL for it.
  if (!vt)
    return fmt::format("its digester table is {} bytes, smaller than ABI {}.1 requires ({})",
                       declared_size(declared), HELIX_ABI_MAJOR, HELIX_DIGESTER_VTABLE_SIZE_1_1);
  if (!vt->create || !vt->destroy || !vt->begin_session || !vt->event || !vt->usage ||
      !vt->end_session)
    return "one of its required callbacks (create, destroy, begin_session, event, usage, "
           "end_session) is NULL";
  return {};
}

// The extension `id` of an adapter, read like every other struct it hands over: NULL, or too
// small for the extension's first revision, is none.
template <class T>
std::optional<T> extension(const helix_adapter_vtable& vt, const char* id, std::size_t minimum) {
  if (!vt.get_extension) return std::nullopt;
  return read_abi_struct<T>(static_cast<const T*>(vt.get_extension(id)), minimum);
}

void read_extensions(PluginInfo& info) {
  const helix_adapter_vtable& vt = *info.adapter;
  info.resume = extension<helix_resume_ext>(vt, HELIX_EXT_RESUME,
                                            HELIX_SIZE_THROUGH(helix_resume_ext, refusal));
  info.hook = extension<helix_hook_ext>(vt, HELIX_EXT_HOOK,
                                        HELIX_SIZE_THROUGH(helix_hook_ext, id_chars_in_file_names));
  const auto reparse = extension<helix_reparse_ext>(
      vt, HELIX_EXT_REPARSE, HELIX_SIZE_THROUGH(helix_reparse_ext, reparse_below));
  if (reparse && reparse->reparse_below) info.reparse_below = reparse->reparse_below;
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
  std::vector<std::filesystem::path> misnamed;  // shared libraries helix-host does not load
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file()) continue;
    if (is_plugin_file_name(name))
      files.push_back(entry.path());
    else if (name.ends_with(".so") || name.find(".so.") != std::string::npos)
      misnamed.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::sort(misnamed.begin(), misnamed.end());
  for (const auto& file : files) load_checked(file, dir);
  for (const auto& file : misnamed)
    refuse(file,
           "its name does not match libhelix_<name>.so, so it is not loaded; if it is a "
           "Helix plugin, rename it to libhelix_<name>.so");
}

void PluginRegistry::load_plugin_file(const std::filesystem::path& file) {
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::canonical(file.parent_path(), ec);
  if (ec) return refuse(file, fmt::format("its directory cannot be resolved: {}", ec.message()));
  if (auto problem = changeable_by_others(dir, "plugin directory"); !problem.empty())
    return refuse(file, problem);
  load_checked(file, dir);
}

void PluginRegistry::load_checked(const std::filesystem::path& file,
                                  const std::filesystem::path& dir) {
  std::error_code ec;
  const std::filesystem::path real = std::filesystem::canonical(file, ec);  // a link's target
  std::string problem = ec ? fmt::format("it cannot be resolved: {}", ec.message())
                           : changeable_by_others(real, "plugin file");
  if (problem.empty() && real.parent_path() != dir)
    problem = changeable_by_others(real.parent_path(), "directory of the plugin file");
  if (!problem.empty()) return refuse(file, problem);
  load_file(real);
}

void PluginRegistry::refuse(const std::filesystem::path& file, std::string reason) {
  refused_.push_back({file, std::move(reason)});
}

void PluginRegistry::load_file(const std::filesystem::path& file) {
  if (!has_elf_header(file))
    return refuse(file,
                  "it is not a shared library (it has no ELF header); remove it from the "
                  "plugin directory");
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
  const helix_plugin_descriptor* declared =
      lib.get<QueryFn>(HELIX_ENTRY_SYMBOL)(HELIX_ABI_MAJOR, HELIX_ABI_MINOR);
  if (!declared)
    return refuse(file, "its helix_plugin_query returned NULL (it declined this host)");
  // The frozen prefix (versions, size, kind) is in every descriptor; the rest is read through
  // its struct_size.
  if (declared->abi_major != HELIX_ABI_MAJOR)
    return refuse(
        file,
        fmt::format(
            "built for Helix plugin ABI {}.{}, this helix-host supports ABI {}.0-{}.{} (major "
            "versions differ); rebuild the plugin with HelixSDK {}.x or use a matching helix-host",
            declared->abi_major, declared->abi_minor, HELIX_ABI_MAJOR, HELIX_ABI_MAJOR,
            HELIX_ABI_MINOR, HELIX_ABI_MAJOR));
  if (declared->abi_minor > HELIX_ABI_MINOR)
    return refuse(
        file, fmt::format("it needs Helix plugin ABI {}.{}, newer than this helix-host's {}.{}; "
                          "upgrade helix-host, or rebuild the plugin with HelixSDK {}.{} so "
                          "that it needs no more than this host offers",
                          declared->abi_major, declared->abi_minor, HELIX_ABI_MAJOR,
                          HELIX_ABI_MINOR, HELIX_ABI_MAJOR, HELIX_ABI_MINOR));
  const auto d = read_abi_struct<helix_plugin_descriptor>(declared, declared->struct_size,
                                                          HELIX_DESCRIPTOR_SIZE_1_0);
  if (!d)
    return refuse(file,
                  fmt::format("its descriptor is {} bytes, smaller than ABI {}.0 requires "
                              "({} bytes)",
                              declared->struct_size, HELIX_ABI_MAJOR, HELIX_DESCRIPTOR_SIZE_1_0));
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
  info.first_party = is_first_party_dir(file.parent_path());
  info.abi_major = d->abi_major;
  info.abi_minor = d->abi_minor;
  if (d->kind == HELIX_KIND_ADAPTER) {
    info.kind = "adapter";
    info.adapter = read_abi_struct(static_cast<const helix_adapter_vtable*>(d->vtable),
                                   HELIX_ADAPTER_VTABLE_SIZE_1_0);
    if (auto problem = adapter_table_problem(info.adapter, d->vtable); !problem.empty())
      return refuse(file, problem);
    read_extensions(info);
  } else if (d->kind == HELIX_KIND_DIGESTER && d->abi_minor >= 1) {
    info.kind = "digester";
    info.digester = read_abi_struct(static_cast<const helix_digester_vtable*>(d->vtable),
                                    HELIX_DIGESTER_VTABLE_SIZE_1_1);
    if (auto problem = digester_table_problem(info.digester, d->vtable); !problem.empty())
      return refuse(file, problem);
  } else {
    return refuse(file, fmt::format("its kind {} is not a plugin kind this helix-host runs "
                                    "(adapter = {}, digester = {} from ABI 1.1)",
                                    d->kind, HELIX_KIND_ADAPTER, HELIX_KIND_DIGESTER));
  }
  libraries_->items.push_back(std::move(lib));
  loaded_.push_back(std::move(info));
}

std::string plugin_signature(const PluginInfo& plugin) {
  struct stat st {};
  if (::stat(plugin.path.c_str(), &st) != 0) return plugin.version;
  return fmt::format("{} {} {}", plugin.version, st.st_size,
                     int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec);
}

bool reparse_worthy(std::string_view parsed_by, const PluginInfo& plugin) {
  return !plugin.reparse_below.empty() && !parsed_by.empty() && parsed_by != plugin.version &&
         version_less(parsed_by, plugin.reparse_below);
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

const helix_hook_ext* PluginRegistry::hook_events(std::string_view flavor) const {
  for (const auto& p : loaded_)
    if (p.adapter && p.adapter->flavor == flavor && p.hook) return &*p.hook;
  return nullptr;
}

const PluginInfo* PluginRegistry::find(std::string_view name) const {
  for (const auto& p : loaded_)
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace helix
