// SGD over one key range of a flat parameter buffer: each server shard's optimizer (its range
// of the global model), and a worker's local optimizer (the whole of its local model).
//
//   SgdOptimizer optimizer({0, n}, params, sgd);
//   optimizer.apply_gradients({grad_a, grad_b}, {0.5, 0.5}, /*lr=*/0.05, /*momentum=*/0.9);
//   optimizer.merge_deltas({delta}, {1.0});
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

#include "params/layout.h"

namespace hetps::server {

struct SgdOptions {
  bool nesterov = false;
  double weight_decay = 0;
};

class SgdOptimizer {
 public:
  // `params` is the whole flat model; the optimizer touches only `range` of it.
  SgdOptimizer(params::KeyRange range, std::span<float> params, SgdOptions sgd);

  const params::KeyRange& range() const { return range_; }

  // One optimizer step on g = Σ weights[k]·gradients[k] (each a whole flat gradient, none
  // overlapping the model), summed in k order with the weights as float, then torch.optim.SGD's
  // step: d = g + wd·w; b = m·b + d; w −= lr·(nesterov ? d + m·b : b).
  void apply_gradients(std::span<const float* const> gradients, std::span<const double> weights,
                       double lr, double momentum);

  // W += Σ weights[k]·deltas[k] (none overlapping the model); no server momentum
  // (spec/baselines.md, apply rules).
  void merge_deltas(std::span<const float* const> deltas, std::span<const double> weights);

  // The optimizer state (its momentum buffer), for checkpoints.
  const std::vector<float>& momentum_buffer() const { return momentum_; }
  void restore_momentum(std::vector<float> buffer);
  nlohmann::json save_state() const;
  // Throws checkpoint::CheckpointError naming the range when the saved buffer holds another
  // count of floats than the range, and then changes nothing.
  void restore_state(const nlohmann::json& state);

 private:
  params::KeyRange range_;
  float* params_;  // start of the range within the model
  SgdOptions sgd_;
  std::vector<float> momentum_;
};

// out[range] = Σ weights[k]·updates[k][range], summed in k order from 0 exactly as an apply
// sums them: a community leader's merge (worker::merge_updates) then gives the bits of a BSP
// round's mean. `out` is a whole flat buffer and may be one of the updates.
void weighted_sum(std::span<const float* const> updates, std::span<const double> weights,
                  const params::KeyRange& range, float* out);

}  // namespace hetps::server
