// Reads a struct a plugin hands the host the way the ABI's versioning rule says: through its
// struct_size, into a zeroed local, so members the plugin's ABI did not have read as zero and
// no byte past the plugin's struct is touched. One helper for records, tables and descriptors.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>

namespace helix {

// The struct at `p` that declares `struct_size` bytes, or nullopt when `p` is NULL or the
// struct is smaller than `minimum` (its first version's size, HELIX_*_SIZE_1_0).
template <class T>
std::optional<T> read_abi_struct(const void* p, std::uint32_t struct_size, std::size_t minimum) {
  if (!p || struct_size < minimum) return std::nullopt;
  T local{};
  std::memcpy(&local, p, std::min<std::size_t>(struct_size, sizeof(T)));
  return local;
}

// The same for the structs whose first member is their struct_size.
template <class T>
std::optional<T> read_abi_struct(const T* p, std::size_t minimum) {
  if (!p) return std::nullopt;
  std::uint32_t struct_size = 0;
  std::memcpy(&struct_size, p, sizeof struct_size);
  return read_abi_struct<T>(p, struct_size, minimum);
}

}  // namespace helix
