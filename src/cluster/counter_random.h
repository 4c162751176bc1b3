// Counter-based random numbers: every draw is a hash of its coordinates (seed, source, index,
// counter), not the next state of a generator. A draw therefore never depends on which other
// draws were made before it, which is what makes the cluster identical for every protocol
// whatever order the engine asks its questions in.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>

namespace hetps::cluster {

// What a stream is for: streams of different sources never share draws.
enum class RandomSource : uint64_t {
  step_noise = 1,
  random_stragglers = 2,
};

// The splitmix64 finaliser: a bijective 64-bit mix with good avalanche.
inline uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// One independent stream of draws, e.g. the step noise of worker 3 under seed 1:
//   CounterStream noise(1, RandomSource::step_noise, 3);
//   double z = noise.normal(step);  // the same z for the same step, always
class CounterStream {
 public:
  CounterStream(uint64_t seed, RandomSource source, uint64_t index)
      : key_(splitmix64(splitmix64(splitmix64(seed) ^ static_cast<uint64_t>(source)) ^ index)) {}

  uint64_t bits(uint64_t counter) const { return splitmix64(key_ ^ splitmix64(counter)); }

  // Uniform in the open interval (0, 1), so that its logarithm is always finite.
  double uniform(uint64_t counter) const {
    return (static_cast<double>(bits(counter) >> 11) + 0.5) * 0x1.0p-53;
  }

  // Standard normal by Box–Muller; consumes the uniforms at counters 2c and 2c+1.
  double normal(uint64_t counter) const {
    double radius = std::sqrt(-2.0 * std::log(uniform(2 * counter)));
    return radius * std::cos(2.0 * std::numbers::pi * uniform(2 * counter + 1));
  }

  double exponential(uint64_t counter, double mean) const {
    return -mean * std::log(uniform(counter));
  }

 private:
  uint64_t key_;
};

}  // namespace hetps::cluster
