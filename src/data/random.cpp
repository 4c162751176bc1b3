#include "data/random.h"

#include <cmath>
#include <limits>
#include <numbers>
#include <utility>

namespace hetps::data {
namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

uint64_t derive_seed(uint64_t seed, SeedDomain domain, std::initializer_list<uint64_t> path) {
  uint64_t h = splitmix64(splitmix64(seed) ^ splitmix64(static_cast<uint64_t>(domain)));
  for (uint64_t id : path) h = splitmix64(h ^ splitmix64(id));
  return h;
}

uint64_t uniform_below(std::mt19937_64& rng, uint64_t n) {
  // Reject the top partial block of the 64-bit range so every residue is equally likely.
  const uint64_t limit =
      std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % n;
  uint64_t x = rng();
  while (x >= limit) x = rng();
  return x % n;
}

double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

double uniform_between(std::mt19937_64& rng, double lo, double hi) {
  return lo + (hi - lo) * uniform01(rng);
}

double standard_normal(std::mt19937_64& rng) {
  const double u1 = 1.0 - uniform01(rng);  // in (0, 1]: log stays finite
  const double u2 = uniform01(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

void shuffle(std::span<int64_t> values, std::mt19937_64& rng) {
  for (size_t i = values.size(); i > 1; --i) {
    std::swap(values[i - 1], values[uniform_below(rng, i)]);
  }
}

}  // namespace hetps::data
