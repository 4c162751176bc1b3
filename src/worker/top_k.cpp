#include "worker/top_k.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "checkpoint/restoring.h"
#include "checkpoint/state_blob.h"

namespace hetps::worker {
namespace {

constexpr uint64_t kMaxTopKEntries = uint64_t{1} << 32;  // indices are 32 bits

// NaN compares false with everything, which would break the strict ordering that
// std::nth_element needs; as the largest magnitude it is deterministic and gets sent.
float top_k_magnitude(float value) {
  return std::isnan(value) ? std::numeric_limits<float>::infinity() : std::fabs(value);
}

void check_top_k_ratio(double keep_ratio) {
  if (!(keep_ratio > 0 && keep_ratio <= 1)) {
    throw std::invalid_argument(
        fmt::format("top-k: keep_ratio = {}; it must be in (0, 1]", keep_ratio));
  }
}

}  // namespace

uint64_t kept_entries(uint64_t entries, double keep_ratio) {
  check_top_k_ratio(keep_ratio);
  const double wanted = keep_ratio * static_cast<double>(entries) * (1 - 1e-12);
  return std::min(entries, static_cast<uint64_t>(std::ceil(wanted)));
}

SparseDelta top_k(std::span<const float> delta, double keep_ratio) {
  std::vector<float> scratch;
  return top_k(delta, keep_ratio, scratch);
}

SparseDelta top_k(std::span<const float> delta, double keep_ratio, std::vector<float>& scratch) {
  const uint64_t kept = kept_entries(delta.size(), keep_ratio);
  if (delta.size() > kMaxTopKEntries) {
    throw std::invalid_argument(
        fmt::format("top-k: a delta of {} entries; at most {} fit 32-bit indices", delta.size(),
                    kMaxTopKEntries));
  }
  SparseDelta sparse{.dense_size = delta.size(), .indices = {}, .values = {}};
  if (kept == 0) return sparse;
  sparse.indices.reserve(kept);
  sparse.values.reserve(kept);

  std::vector<float>& magnitudes = scratch;
  magnitudes.resize(delta.size());
  std::ranges::transform(delta, magnitudes.begin(), top_k_magnitude);
  const auto smallest_kept = magnitudes.end() - static_cast<std::ptrdiff_t>(kept);
  std::nth_element(magnitudes.begin(), smallest_kept, magnitudes.end());
  // [smallest_kept, end) now holds the kept magnitudes: every one above the threshold, and
  // `ties` equal to it, which go to the lowest indices holding that magnitude.
  const float threshold = *smallest_kept;
  auto ties = std::count(smallest_kept, magnitudes.end(), threshold);
  for (uint64_t i = 0; i < delta.size(); ++i) {
    const float magnitude = top_k_magnitude(delta[i]);
    if (magnitude < threshold) continue;
    if (magnitude == threshold) {
      if (ties == 0) continue;
      --ties;
    }
    sparse.indices.push_back(static_cast<uint32_t>(i));
    sparse.values.push_back(delta[i]);
  }
  return sparse;
}

void add_sparse(const SparseDelta& delta, std::span<float> dense) {
  if (delta.dense_size != dense.size()) {
    throw std::invalid_argument(
        fmt::format("add_sparse: a delta cut from {} entries added to a vector of {}",
                    delta.dense_size, dense.size()));
  }
  for (size_t k = 0; k < delta.indices.size(); ++k) dense[delta.indices[k]] += delta.values[k];
}

ErrorFeedback::ErrorFeedback(uint64_t entries) : residual_(entries, 0.0f) {}

SparseDelta ErrorFeedback::compress(std::span<const float> delta, double keep_ratio) {
  if (delta.size() != residual_.size()) {
    throw std::invalid_argument(
        fmt::format("error feedback: a delta of {} entries for a residual of {}; they must match",
                    delta.size(), residual_.size()));
  }
  check_top_k_ratio(keep_ratio);  // before the residual changes
  for (size_t i = 0; i < delta.size(); ++i) residual_[i] += delta[i];
  SparseDelta sent = top_k(residual_, keep_ratio, magnitudes_);
  for (const uint32_t index : sent.indices) residual_[index] = 0;
  return sent;
}

nlohmann::json ErrorFeedback::save_state() const {
  return {{"residual", checkpoint::floats_blob(residual_)}};
}

void ErrorFeedback::restore_state(const nlohmann::json& state) {
  checkpoint::restoring("error feedback", [&] {
    checkpoint::read_floats(state.at("residual"), residual_, "residual");
  });
}

}  // namespace hetps::worker
