// 64-bit FNV-1a: a hash of bytes that is the same on every build and machine (std::hash is
// not), for the model's bits, config texts and input files.
#pragma once

#include <cstdint>
#include <string_view>

namespace hetps::params {

inline constexpr uint64_t kFnv1aStart = 1469598103934665603ull;

// Hashes `bytes` on from `hash` (kFnv1aStart, or what an earlier part of the same data gave).
inline uint64_t fnv1a(std::string_view bytes, uint64_t hash = kFnv1aStart) {
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return hash;
}

}  // namespace hetps::params
