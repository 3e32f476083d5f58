#include "ingest/source_file.hpp"

#include "privacy/credential_files.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace helix {

struct SourceFile::Decoder {
  ZSTD_DCtx* ctx = ZSTD_createDCtx();
  std::string in_buffer = std::string(ZSTD_DStreamInSize(), '\0');
  std::size_t in_pos = 0, in_len = 0;
  int64_t file_pos = 0;  // compressed bytes consumed from the file
  int64_t out_pos = 0;   // decompressed bytes produced so far
  bool finished = false;
  std::string pending;  // decompressed bytes produced but not yet served, ending at out_pos
  ~Decoder() { ZSTD_freeDCtx(ctx); }
  void restart() {
    ZSTD_DCtx_reset(ctx, ZSTD_reset_session_only);
    in_pos = in_len = 0;
    file_pos = out_pos = 0;
    finished = false;
    pending.clear();
  }
};

namespace {

bool has_zstd_magic(int fd) {
  unsigned char magic[4];
  return ::pread(fd, magic, 4, 0) == 4 && magic[0] == 0x28 && magic[1] == 0xB5 &&
         magic[2] == 0x2F && magic[3] == 0xFD;
}

}  // namespace

uint64_t hash_bytes(std::string_view bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

SourceFile::SourceFile(const std::filesystem::path& path) : path_(path) {
  if (is_credential_path(path))  // whoever asks (discovery, a hook, a test): never opened
    throw std::runtime_error(fmt::format(
        "{} holds credentials (by its name or directory); helix-host never opens such files",
        path.string()));
  // Never through a symbolic link: discovery lists a link inside the roots as its target, so
  // a link here was put in place after discovery (or named by a hook) and may lead anywhere.
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
  if (fd_ < 0 && errno == ELOOP)
    throw std::runtime_error(fmt::format(
        "{} is a symbolic link; sources are opened only by their own path, never through a link",
        path.string()));
  if (fd_ < 0)
    throw std::runtime_error(
        fmt::format("cannot open {}: {}", path.string(), std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    throw std::runtime_error(fmt::format("{} is not a regular file", path.string()));
  }
  identity_ = {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino),
               static_cast<int64_t>(st.st_size),
               static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
  if (has_zstd_magic(fd_)) decoder_ = std::make_unique<Decoder>();
}

SourceFile::~SourceFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::string SourceFile::read(int64_t offset, std::size_t max_bytes) {
  std::string out;
  append(out, offset, max_bytes);
  return out;
}

std::size_t SourceFile::append(std::string& out, int64_t offset, std::size_t max_bytes) {
  const std::size_t base = out.size();
  if (decoder_) {
    out += read_compressed(offset, max_bytes);
    return out.size() - base;
  }
  // Room for what the file held when opened, plus a little: a short read then proves the end
  // without a second call. Grown only if a writer appended since.
  constexpr std::size_t kSlack = 4096;
  const auto known = static_cast<std::size_t>(std::max<int64_t>(0, identity_.size - offset));
  std::size_t room = std::min(max_bytes, known + kSlack);
  std::size_t got = 0;
  out.resize(base + room);
  while (got < max_bytes) {
    if (got == room) {
      room = std::min(max_bytes, room * 2);
      out.resize(base + room);
    }
    ssize_t n =
        ::pread(fd_, out.data() + base + got, room - got, offset + static_cast<int64_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      out.resize(base);
      throw std::runtime_error(
          fmt::format("cannot read {}: {}", path_.string(), std::strerror(errno)));
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  out.resize(base + got);
  return got;
}

std::string SourceFile::read_compressed(int64_t offset, std::size_t max_bytes) {
  Decoder& d = *decoder_;
  // d.pending holds decompressed bytes [d.out_pos - pending.size(), d.out_pos) not yet served.
  if (offset < d.out_pos - static_cast<int64_t>(d.pending.size())) d.restart();
  std::string out;
  auto take = [&](const char* bytes, std::size_t n, int64_t start) {
    // Serve the part of [start, start + n) that lies at or after offset + out.size().
    const int64_t want_from = offset + static_cast<int64_t>(out.size());
    const int64_t end = start + static_cast<int64_t>(n);
    if (end <= want_from) return std::string_view();
    const auto skip = static_cast<std::size_t>(std::max<int64_t>(0, want_from - start));
    const std::size_t len = std::min(n - skip, max_bytes - out.size());
    out.append(bytes + skip, len);
    return std::string_view(bytes + skip + len, n - skip - len);  // the unserved rest
  };
  std::string pending = std::move(d.pending);
  d.pending.clear();
  auto rest =
      take(pending.data(), pending.size(), d.out_pos - static_cast<int64_t>(pending.size()));
  d.pending.assign(rest);
  std::string scratch(ZSTD_DStreamOutSize(), '\0');
  while (out.size() < max_bytes && !d.finished) {
    if (d.in_pos == d.in_len) {
      ssize_t n = ::pread(fd_, d.in_buffer.data(), d.in_buffer.size(), d.file_pos);
      if (n < 0)
        throw std::runtime_error(
            fmt::format("cannot read {}: {}", path_.string(), std::strerror(errno)));
      if (n == 0) {
        d.finished = true;
        break;
      }
      d.file_pos += n;
      d.in_pos = 0;
      d.in_len = static_cast<std::size_t>(n);
    }
    ZSTD_inBuffer in{d.in_buffer.data(), d.in_len, d.in_pos};
    ZSTD_outBuffer produced{scratch.data(), scratch.size(), 0};
    std::size_t rc = ZSTD_decompressStream(d.ctx, &produced, &in);
    if (ZSTD_isError(rc))
      throw std::runtime_error(
          fmt::format("{} is not a valid zstd stream: {}", path_.string(), ZSTD_getErrorName(rc)));
    d.in_pos = in.pos;
    const int64_t start = d.out_pos;
    d.out_pos += static_cast<int64_t>(produced.pos);
    d.pending.assign(take(scratch.data(), produced.pos, start));
  }
  return out;
}

uint64_t SourceFile::hash(int64_t offset, int64_t length) {
  std::string& bytes = hash_buffer_;
  bytes.clear();
  append(bytes, offset, static_cast<std::size_t>(length));
  return hash_bytes(bytes);
}

FileIdentity stat_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino),
          static_cast<int64_t>(st.st_size),
          static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

}  // namespace helix
