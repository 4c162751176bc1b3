#include "server/sgd_optimizer.h"

#include <algorithm>
#include <array>
#include <stdexcept>

#include <fmt/format.h>

#include "checkpoint/restoring.h"
#include "checkpoint/state_blob.h"

// The kernels below are built twice, for AVX2 (8 floats a vector) and for baseline x86-64 (SSE2,
// 4 floats), and the loader picks the one the CPU runs: the build sets no -march, and where the
// model is in the cache the apply waits on its arithmetic (measured, 1 MB model, as a ratio to
// memcpy: one gradient 0.35 with SSE2, 0.5 with AVX2; four gradients 0.64 and 0.85). AVX2 without
// FMA on purpose: a fused multiply-add rounds once where SSE2 rounds twice, and every CPU must
// get the same bits.
// Not under ThreadSanitizer: the loader runs the clones' resolver before TSan's runtime is up, and
// the instrumented resolver crashes.
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define HETPS_VECTOR_KERNEL __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef HETPS_VECTOR_KERNEL
#define HETPS_VECTOR_KERNEL
#endif

namespace hetps::server {

SgdOptimizer::SgdOptimizer(params::KeyRange range, std::span<float> params, SgdOptions sgd)
    : range_(range), sgd_(sgd), momentum_(range.size(), 0.0f) {
  if (range.end > params.size() || range.begin > range.end) {
    throw std::invalid_argument("SgdOptimizer: key range outside the model");
  }
  params_ = params.data() + range.begin;
}

namespace {

// torch.optim.SGD's step with the settings of one apply.
struct StepRule {
  float lr;
  float momentum;
  float weight_decay;
  bool nesterov;
};

// A run of keys' combined update, folded onto a start in update order: for key i,
// ((start[i] + weights[0]·updates[0][i]) + weights[1]·updates[1][i]) + ... Up to four updates in
// one pass, read side by side: summing one update per pass into a buffer, the model and the
// momentum waiting in between, ran at 0.6 of memcpy for four gradients; this runs above 1.
constexpr size_t kFoldWidth = 4;
struct Fold {
  const float* start;
  std::array<const float*, kFoldWidth> updates;
  std::array<float, kFoldWidth> weights;
  size_t size;  // updates in use, 0 to kFoldWidth
};

// Calls `body(i, u)` for i in [0, count) with u the fold's value at key i, in one vectorizable
// loop per number of updates. ivdep: the buffers written never overlap those read (the header's
// contract); GCC would otherwise check every pair at run time, and give up past ten pairs.
template <size_t kUpdates, typename Body>
[[gnu::always_inline]] inline void fold_keys(const Fold& fold, size_t count, Body body) {
#pragma GCC ivdep
  for (size_t i = 0; i < count; ++i) {
    float u = fold.start[i];
    for (size_t k = 0; k < kUpdates; ++k) u += fold.weights[k] * fold.updates[k][i];
    body(i, u);
  }
}

template <typename Body>
[[gnu::always_inline]] inline void fold_keys(const Fold& fold, size_t count, Body body) {
  static_assert(kFoldWidth == 4, "one case per fold size");
  switch (fold.size) {
    case 0:
      return fold_keys<0>(fold, count, body);
    case 1:
      return fold_keys<1>(fold, count, body);
    case 2:
      return fold_keys<2>(fold, count, body);
    case 3:
      return fold_keys<3>(fold, count, body);
    default:
      return fold_keys<4>(fold, count, body);
  }
}

// One SGD step on `count` keys: w the weights, b their momentum buffer, the fold their gradient.
// One loop per rule, so that no loop tests the rule per key.
HETPS_VECTOR_KERNEL void sgd_step(float* w, float* b, const Fold& fold, size_t count,
                                  StepRule rule) {
  const float m = rule.momentum;
  const float lr = rule.lr;
  const float decay = rule.weight_decay;
  if (m == 0.0f) {
    fold_keys(fold, count, [&](size_t i, float g) { w[i] -= lr * (g + decay * w[i]); });
  } else if (rule.nesterov) {
    fold_keys(fold, count, [&](size_t i, float g) {
      const float d = g + decay * w[i];
      b[i] = m * b[i] + d;
      w[i] -= lr * (d + m * b[i]);
    });
  } else {
    fold_keys(fold, count, [&](size_t i, float g) {
      const float d = g + decay * w[i];
      b[i] = m * b[i] + d;
      w[i] -= lr * b[i];
    });
  }
}

HETPS_VECTOR_KERNEL void add(float* w, const Fold& fold, size_t count) {
  fold_keys(fold, count, [&](size_t i, float u) { w[i] += u; });
}

// out = the fold's value, key by key: each key is read before it is written, so `out` may be
// the fold's start (a block of sums) or one of its updates.
HETPS_VECTOR_KERNEL void fold_into(float* out, const Fold& fold, size_t count) {
  fold_keys(fold, count, [&](size_t i, float u) { out[i] = u; });
}

void check_same_size(std::span<const float* const> updates, std::span<const double> weights) {
  if (updates.size() != weights.size() || updates.empty()) {
    throw std::invalid_argument(
        "SgdOptimizer: need one weight per update, and at least one update");
  }
}

// Calls `body(offset, fold, count)` over the range in runs of keys, the fold giving the combined
// update Σ weights[k]·updates[k] of keys range.begin + offset + [0, count), summed in k order
// from 0 (every engine gets the same bits). One update of weight 1 (every asynchronous apply) is
// handed over as it is, in one run. Otherwise a block of keys at a time: all updates but the last
// fold (up to four) are summed into a buffer that stays in the L1 cache, and the last fold goes
// with `body`, so that the model and the momentum are read and written once.
template <typename Body>
void for_each_combined(std::span<const float* const> updates, std::span<const double> weights,
                       const params::KeyRange& range, Body body) {
  check_same_size(updates, weights);
  if (updates.size() == 1 && weights[0] == 1.0) {
    body(0, Fold{updates[0] + range.begin, {}, {}, 0}, range.size());
    return;
  }
  constexpr size_t kBlock = 8192;  // 32 KB of sums
  alignas(64) float sums[kBlock];
  const size_t last_fold = updates.size() - 1 - (updates.size() - 1) % kFoldWidth;
  for (size_t start = 0; start < range.size(); start += kBlock) {
    const size_t count = std::min(kBlock, range.size() - start);
    const auto fold = [&](size_t first, size_t size) {
      Fold f{sums, {}, {}, size};
      for (size_t k = 0; k < size; ++k) {
        f.updates[k] = updates[first + k] + range.begin + start;
        f.weights[k] = static_cast<float>(weights[first + k]);
      }
      return f;
    };
    std::fill_n(sums, count, 0.0f);
    for (size_t k = 0; k < last_fold; k += kFoldWidth) fold_into(sums, fold(k, kFoldWidth), count);
    body(start, fold(last_fold, updates.size() - last_fold), count);
  }
}

}  // namespace

void SgdOptimizer::apply_gradients(std::span<const float* const> gradients,
                                   std::span<const double> weights, double lr, double momentum) {
  const StepRule rule{static_cast<float>(lr), static_cast<float>(momentum),
                      static_cast<float>(sgd_.weight_decay), sgd_.nesterov};
  for_each_combined(gradients, weights, range_, [&](size_t offset, const Fold& g, size_t count) {
    sgd_step(params_ + offset, momentum_.data() + offset, g, count, rule);
  });
}

void SgdOptimizer::merge_deltas(std::span<const float* const> deltas,
                                std::span<const double> weights) {
  for_each_combined(deltas, weights, range_, [&](size_t offset, const Fold& u, size_t count) {
    add(params_ + offset, u, count);
  });
}

void weighted_sum(std::span<const float* const> updates, std::span<const double> weights,
                  const params::KeyRange& range, float* out) {
  for_each_combined(updates, weights, range, [&](size_t offset, const Fold& fold, size_t count) {
    fold_into(out + range.begin + offset, fold, count);
  });
}

void SgdOptimizer::restore_momentum(std::vector<float> buffer) {
  if (buffer.size() != range_.size()) {
    throw std::invalid_argument("SgdOptimizer: momentum buffer of the wrong size");
  }
  momentum_ = std::move(buffer);
}

nlohmann::json SgdOptimizer::save_state() const {
  return {{"momentum", checkpoint::floats_blob(momentum_)}};
}

void SgdOptimizer::restore_state(const nlohmann::json& state) {
  checkpoint::restoring(
      fmt::format("SGD optimizer over keys [{}, {})", range_.begin, range_.end),
      [&] { checkpoint::read_floats(state.at("momentum"), momentum_, "momentum"); });
}

}  // namespace hetps::server
