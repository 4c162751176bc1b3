#include "data/synthetic.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>

#include "data/random.h"

namespace hetps::data {
namespace {

constexpr int kSide = 28;
constexpr int kClasses = 10;
constexpr int kBlobsPerClass = 6;

// Stream ids under the run seed: one for the prototypes, one per split.
constexpr uint64_t kPrototypeStream = 1;
constexpr uint64_t kTrainStream = 2;
constexpr uint64_t kTestStream = 3;

// How far a sample strays from its prototype; tuned so the set is learnable but not trivial.
constexpr double kShiftPixels = 1.2;       // std-dev of the whole-image shift
constexpr double kBlobJitterPixels = 1.0;  // std-dev of each blob's own displacement
constexpr double kBlobDropout = 0.12;      // chance a blob is missing from a sample
constexpr double kPixelNoise = 0.3;  // per-pixel noise, uniform in ±this (cheaper than normal)

struct Blob {
  double x = 0;
  double y = 0;
  double sigma = 0;
  double intensity = 0;
};

using Prototype = std::array<Blob, kBlobsPerClass>;

std::array<Prototype, kClasses> make_prototypes(uint64_t seed) {
  std::mt19937_64 rng(derive_seed(seed, SeedDomain::kSynthetic, {kPrototypeStream}));
  std::array<Prototype, kClasses> prototypes;
  for (Prototype& prototype : prototypes) {
    for (Blob& blob : prototype) {
      blob = {uniform_between(rng, 6, 22), uniform_between(rng, 6, 22),
              uniform_between(rng, 1.5, 3.5), uniform_between(rng, 0.5, 1.0)};
    }
  }
  return prototypes;
}

// Draws one sample of `prototype` into `out` (kSide × kSide floats in [0, 1]).
void draw_sample(const Prototype& prototype, std::mt19937_64& rng, float* out) {
  const double shift_x = kShiftPixels * standard_normal(rng);
  const double shift_y = kShiftPixels * standard_normal(rng);
  std::array<Blob, kBlobsPerClass> blobs;
  for (int b = 0; b < kBlobsPerClass; ++b) {
    Blob blob = prototype[b];
    blob.x += shift_x + kBlobJitterPixels * standard_normal(rng);
    blob.y += shift_y + kBlobJitterPixels * standard_normal(rng);
    blob.sigma *= uniform_between(rng, 0.8, 1.25);
    blob.intensity *= uniform01(rng) < kBlobDropout ? 0.0 : uniform_between(rng, 0.6, 1.2);
    blobs[b] = blob;
  }
  // A Gaussian blob is separable: exp(-(dx² + dy²) / 2σ²) = gx(col) · gy(row), so each blob
  // costs 2 × kSide exponentials instead of kSide².
  std::array<std::array<double, kSide>, kBlobsPerClass> along_x;
  std::array<std::array<double, kSide>, kBlobsPerClass> along_y;
  for (int b = 0; b < kBlobsPerClass; ++b) {
    const double scale = -1.0 / (2 * blobs[b].sigma * blobs[b].sigma);
    for (int i = 0; i < kSide; ++i) {
      along_x[b][i] = blobs[b].intensity * std::exp(scale * (i - blobs[b].x) * (i - blobs[b].x));
      along_y[b][i] = std::exp(scale * (i - blobs[b].y) * (i - blobs[b].y));
    }
  }
  for (int row = 0; row < kSide; ++row) {
    for (int col = 0; col < kSide; ++col) {
      double value = 0;
      for (int b = 0; b < kBlobsPerClass; ++b) value += along_x[b][col] * along_y[b][row];
      value = std::min(value, 1.0) + uniform_between(rng, -kPixelNoise, kPixelNoise);
      out[row * kSide + col] = static_cast<float>(std::clamp(value, 0.0, 1.0));
    }
  }
}

Dataset make_set(const std::array<Prototype, kClasses>& prototypes, int64_t size, uint64_t seed,
                 uint64_t stream) {
  Dataset set;
  set.channels = 1;
  set.height = kSide;
  set.width = kSide;
  set.classes = kClasses;
  set.inputs.resize(static_cast<size_t>(size * set.sample_floats()));
  set.labels.resize(static_cast<size_t>(size));
  for (int64_t i = 0; i < size; ++i) {
    // One stream per sample: a sample does not depend on how many were drawn before it.
    std::mt19937_64 rng(
        derive_seed(seed, SeedDomain::kSynthetic, {stream, static_cast<uint64_t>(i)}));
    const int64_t label = i % kClasses;
    set.labels[i] = label;
    draw_sample(prototypes[label], rng, set.inputs.data() + i * set.sample_floats());
  }
  return set;
}

}  // namespace

DataSplit make_synthetic(int64_t train_size, int64_t test_size, uint64_t seed) {
  const auto prototypes = make_prototypes(seed);
  return {make_set(prototypes, train_size, seed, kTrainStream),
          make_set(prototypes, test_size, seed, kTestStream)};
}

}  // namespace hetps::data
