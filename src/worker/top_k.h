// Top-k sparsification of model deltas (spec/ashl.md, Algorithm 2 and "compression-based
// communication"): a worker sends only the `keep_ratio` fraction of its delta's entries of
// largest magnitude, as (index, value) pairs, and with error feedback keeps what it dropped to
// add to its next delta.
//
//   ErrorFeedback feedback(model_size);
//   SparseDelta sent = feedback.compress(delta, 0.1);  // 10% of the entries, the largest
//   add_sparse(sent, global_delta);                    // on the server: global_delta += sent
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetps::worker {

// The wire form of a sparsified delta: what the run log counts is bytes().
struct SparseDelta {
  static constexpr int64_t kBytesPerEntry = sizeof(uint32_t) + sizeof(float);

  uint64_t dense_size = 0;        // entries of the dense delta it was cut from
  std::vector<uint32_t> indices;  // ascending
  std::vector<float> values;      // values[k] is the entry at indices[k]

  int64_t bytes() const { return static_cast<int64_t>(indices.size()) * kBytesPerEntry; }
  bool operator==(const SparseDelta&) const = default;
};

// The number of entries top-k keeps of `entries`: ceil(keep_ratio · entries), so any positive
// ratio keeps at least one entry of a non-empty delta (a push never sends nothing) and a ratio
// of 1 keeps all. A ratio written in decimal is not exact in binary (0.07 is stored as
// 0.0700000000000000067, and 0.07 · 100 then exceeds 7): the product is shrunk by a relative
// 1e-12 before the ceiling, far above that representation error and far below one entry for
// any model that fits in memory. Throws std::invalid_argument unless 0 < keep_ratio <= 1.
uint64_t kept_entries(uint64_t entries, double keep_ratio);

// Keeps the kept_entries(delta.size(), keep_ratio) entries of largest magnitude, ties broken by
// the lower index, so the result depends on the values alone. A NaN counts as larger than any
// number: a diverged delta then shows at the server rather than hiding in a residual. O(n)
// (std::nth_element on the magnitudes, then one pass in index order). Throws
// std::invalid_argument for a bad ratio or a delta of more than 2^32 entries (indices are 32
// bits).
SparseDelta top_k(std::span<const float> delta, double keep_ratio);
// The same, with the magnitudes in `scratch` (resized to the delta's size): a caller that
// compresses every round keeps one model-sized buffer instead of allocating one each time.
SparseDelta top_k(std::span<const float> delta, double keep_ratio, std::vector<float>& scratch);

// dense[indices[k]] += values[k] for every kept entry. Throws std::invalid_argument when
// `dense` has another size than the delta was cut from.
void add_sparse(const SparseDelta& delta, std::span<float> dense);

// Error feedback: what top-k drops is not lost but carried into the next round. Each round
// the new delta is added to the residual, top-k of that sum is sent, and the rest stays as the
// residual; every entry of the sum is either sent or kept, never both, so over any number of
// rounds Σ sent + residual = Σ deltas up to the float rounding of the additions.
class ErrorFeedback {
 public:
  // A residual of `entries` zeros.
  explicit ErrorFeedback(uint64_t entries);

  // One round. Throws std::invalid_argument when `delta` has another size than the residual,
  // or for a bad ratio (top_k).
  SparseDelta compress(std::span<const float> delta, double keep_ratio);

  std::span<const float> residual() const { return residual_; }

  // The residual, for checkpoints (the magnitudes are scratch, rewritten every round).
  // restore_state throws checkpoint::CheckpointError when the saved residual holds another
  // count of entries, and then changes nothing.
  nlohmann::json save_state() const;
  void restore_state(const nlohmann::json& state);

 private:
  std::vector<float> residual_;
  std::vector<float> magnitudes_;  // top_k's scratch, kept between rounds
};

}  // namespace hetps::worker
