// Seeded randomness for the data part, written out by hand on purpose: the standard library's
// distributions and std::shuffle are implementation-defined, and "same seed, same bytes" must
// hold on every standard library, not only the one a run happened to be built with.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <random>
#include <span>

namespace hetps::data {

// Who draws from a stream. Every user of the run seed in this part has its own domain, so two
// purposes never share a stream even when their paths coincide.
enum class SeedDomain : uint64_t {
  kSynthetic = 1,
  kPartition = 2,
  kSampler = 3,
  kFetchSplit = 4,
};

// A seed for one independent stream, derived from the run seed, the domain and a path of stream
// ids (e.g. {kTrainStream, sample}): nearby paths give unrelated seeds (splitmix64 finalizer).
uint64_t derive_seed(uint64_t seed, SeedDomain domain, std::initializer_list<uint64_t> path);

// Uniform integer in [0, n), n > 0, without modulo bias.
uint64_t uniform_below(std::mt19937_64& rng, uint64_t n);

// Uniform double in [0, 1) with 53 random bits.
double uniform01(std::mt19937_64& rng);

// Uniform double in [lo, hi).
double uniform_between(std::mt19937_64& rng, double lo, double hi);

// Standard normal deviate (Box-Muller; one deviate per call keeps the stream stateless).
double standard_normal(std::mt19937_64& rng);

// Fisher-Yates shuffle in place.
void shuffle(std::span<int64_t> values, std::mt19937_64& rng);

}  // namespace hetps::data
