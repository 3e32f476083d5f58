#include "plugins/plugin_registry.hpp"

#include "base/ownership.hpp"
#include "base/semver.hpp"
#include "plugins/abi_struct.hpp"
#include "plugins/trusted_open.hpp"

#define BOOST_DLL_USE_STD_FS
#include <boost/dll/library_info.hpp>
#include <boost/dll/shared_library.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <regex>

namespace helix {
namespace dll = boost::dll;

// A library loaded through /proc/self/fd/N keeps N open while it lives: the loader knows it by
// that name, so the number must not name another file meanwhile.
struct LoadedLibrary {
  OwnedFd fd;
  dll::shared_library lib;  // destroyed (unloaded) before its descriptor closes
};

struct PluginRegistry::Libraries {
  std::vector<LoadedLibrary> items;
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

bool has_elf_header(int fd) {
  char magic[4] = {};
  return ::pread(fd, magic, sizeof magic, 0) == sizeof magic && std::memcmp(magic,
                                                                            "\x7f"
                                                                            "ELF",
                                                                            sizeof magic) == 0;
}

constexpr TrustedRole kDirectoryRole{"plugin directory", "folder above the plugin directory", true};
constexpr TrustedRole kFileRole{"plugin file", "directory of the plugin file", false};

// The name the loader opens the descriptor by: the very file that was checked.
std::string descriptor_path(int fd) { return fmt::format("/proc/self/fd/{}", fd); }

// Whether the mapping holding `code` is of the file `checked` describes (read from
// /proc/self/maps: "start-end perms offset major:minor inode path").
bool mapped_from(const void* code, const struct stat& checked) {
  std::ifstream maps("/proc/self/maps");
  const auto address = reinterpret_cast<std::uintptr_t>(code);
  for (std::string line; std::getline(maps, line);) {
    unsigned long long start = 0, end = 0, inode = 0;
    unsigned major = 0, minor = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx %*s %*s %x:%x %llu", &start, &end, &major, &minor,
                    &inode) != 5)
      continue;
    if (address >= start && address < end)
      return makedev(major, minor) == checked.st_dev && inode == checked.st_ino;
  }
  return false;
}

// The names of the entries of the open directory `dir_fd` that are (or link to) regular files.
std::vector<std::string> regular_files(int dir_fd) {
  std::vector<std::string> names;
  DIR* listing = ::fdopendir(::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0));
  if (!listing) return names;
  while (const dirent* entry = ::readdir(listing)) {
    struct stat st {};
    if (::fstatat(dir_fd, entry->d_name, &st, 0) == 0 && S_ISREG(st.st_mode))
      names.emplace_back(entry->d_name);
  }
  ::closedir(listing);
  std::sort(names.begin(), names.end());
  return names;
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

// Loads the checked file open as `fd` through /proc/self/fd/N into `out`, or says why not. The
// loader answers a name it already knows with the library it holds under it (one an earlier
// registry loaded from that number stays mapped when it has unique C++ symbols), so the mapping
// is checked to be of the checked file, and a taken number is given up for a fresh one.
std::string load_descriptor(OwnedFd fd, LoadedLibrary& out) {
  struct stat checked {};
  if (::fstat(fd.get(), &checked) != 0)
    return fmt::format("it cannot be checked: {}", std::strerror(errno));
  using QueryFn = const helix_plugin_descriptor*(uint32_t, uint32_t);
  for (int attempt = 0; attempt < 16 && fd.valid(); ++attempt) {
    {
      std::error_code ec;
      dll::shared_library lib(descriptor_path(fd.get()), ec,
                              dll::load_mode::rtld_now | dll::load_mode::rtld_local);
      if (ec) return fmt::format("it cannot be loaded: {}", ec.message());
      if (lib.has(HELIX_ENTRY_SYMBOL) &&
          mapped_from(reinterpret_cast<const void*>(&lib.get<QueryFn>(HELIX_ENTRY_SYMBOL)),
                      checked)) {
        out = LoadedLibrary{std::move(fd), std::move(lib)};
        return {};
      }
    }
    fd = OwnedFd(::fcntl(fd.get(), F_DUPFD_CLOEXEC, fd.get() + 1));
  }
  return "the loader did not map the checked file (another library holds its descriptor's "
         "name); load fewer plugins in one process or report this as a bug";
}

}  // namespace

void PluginRegistry::load_directory(const std::filesystem::path& configured) {
  // The directory is named by its canonical absolute path (neither the working directory nor
  // the loader's search path decides which file loads), then opened and judged by descriptor
  // from / down; its files are opened through that descriptor and loaded through their own.
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::canonical(configured, ec);
  if (ec || !std::filesystem::is_directory(dir, ec)) {
    refuse(configured,
           "plugin directory does not exist or is not a directory; pass an existing "
           "directory with --plugins or set [plugins] dirs in the configuration");
    return;
  }
  TrustedOpen opened = open_trusted(dir, kDirectoryRole);
  if (!opened.problem.empty()) return refuse(dir, opened.problem);
  std::vector<std::filesystem::path> misnamed;  // shared libraries helix-host does not load
  for (const std::string& name : regular_files(opened.fd.get())) {
    if (is_plugin_file_name(name))
      load_entry(opened.fd.get(), dir / name);
    else if (name.ends_with(".so") || name.find(".so.") != std::string::npos)
      misnamed.push_back(dir / name);
  }
  for (const auto& file : misnamed)
    refuse(file,
           "its name does not match libhelix_<name>.so, so it is not loaded; if it is a "
           "Helix plugin, rename it to libhelix_<name>.so");
}

void PluginRegistry::load_plugin_file(const std::filesystem::path& file) {
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::canonical(file.parent_path(), ec);
  if (ec) return refuse(file, fmt::format("its directory cannot be resolved: {}", ec.message()));
  TrustedOpen opened = open_trusted(dir, kDirectoryRole);
  if (!opened.problem.empty()) return refuse(file, opened.problem);
  load_entry(opened.fd.get(), dir / file.filename());
}

void PluginRegistry::load_entry(int dir_fd, const std::filesystem::path& file) {
  TrustedOpen opened = open_trusted_entry(dir_fd, file, kFileRole);
  std::filesystem::path real = file;
  if (opened.link) {  // a link is judged by its target's whole path, from / down
    std::error_code ec;
    real = std::filesystem::canonical(file, ec);
    if (ec) return refuse(file, fmt::format("it cannot be resolved: {}", ec.message()));
    opened = open_trusted(real, kFileRole);
  }
  if (!opened.problem.empty()) return refuse(file, opened.problem);
  load_file(real, std::move(opened.fd));
}

void PluginRegistry::refuse(const std::filesystem::path& file, std::string reason) {
  refused_.push_back({file, std::move(reason)});
}

void PluginRegistry::load_file(const std::filesystem::path& file, OwnedFd fd) {
  if (!has_elf_header(fd.get()))
    return refuse(file,
                  "it is not a shared library (it has no ELF header); remove it from the "
                  "plugin directory");
  // Check for the entry symbol without running any of the library's code.
  try {
    dll::library_info info(descriptor_path(fd.get()));
    auto symbols = info.symbols();
    if (std::find(symbols.begin(), symbols.end(), HELIX_ENTRY_SYMBOL) == symbols.end())
      return refuse(file, fmt::format("it does not export {}, so it is not a Helix plugin; "
                                      "rebuild it with the Helix SDK or remove it",
                                      HELIX_ENTRY_SYMBOL));
  } catch (const std::exception& e) {
    return refuse(file, fmt::format("it is not a readable shared library ({})", e.what()));
  }

  LoadedLibrary loaded;
  if (auto problem = load_descriptor(std::move(fd), loaded); !problem.empty())
    return refuse(file, problem);
  dll::shared_library& lib = loaded.lib;

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
  libraries_->items.push_back(std::move(loaded));
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
