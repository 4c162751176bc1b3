// One worker's stream of mini-batches over its shard of the training set.
//
//   BatchSampler sampler(shards[w], seed, w);
//   sampler.next_batch(train, 32, inputs, labels);   // inputs: 32 × sample_floats() floats
//   BatchSampler::State saved = sampler.state();     // into a checkpoint ...
//   sampler.restore(saved);                          // ... and back: the same batches follow
#pragma once

#include <cstdint>
#include <vector>

#include "data/dataset.h"

namespace hetps::data {

class BatchSampler {
 public:
  // Where the sampler stands: the epoch and the next position in that epoch's order.
  struct State {
    int64_t epoch = 0;
    int64_t position = 0;
    bool operator==(const State&) const = default;
  };

  // `indices`: the worker's samples (not empty, none negative; throws std::invalid_argument). The
  // order of epoch e is a shuffle of `indices` by a std::mt19937_64 seeded from (seed, worker, e).
  BatchSampler(std::vector<int64_t> indices, uint64_t seed, int worker);

  // Copies the next `batch_size` samples' inputs and labels into the caller's buffers
  // (batch_size × dataset.sample_floats() floats, batch_size labels), continuing into the next
  // epoch when this one runs out. Allocates nothing. Throws std::invalid_argument for
  // batch_size < 1 or a shard index beyond `dataset`.
  void next_batch(const Dataset& dataset, int batch_size, float* inputs_out, int64_t* labels_out);

  int64_t epoch() const { return epoch_; }
  int64_t position() const { return position_; }
  int64_t shard_size() const { return static_cast<int64_t>(order_.size()); }

  State state() const { return {epoch_, position_}; }
  // Throws std::invalid_argument when the position lies outside the shard.
  void restore(const State& state);

 private:
  void start_epoch(int64_t epoch);

  std::vector<int64_t> indices_;  // the shard as given
  std::vector<int64_t> order_;    // this epoch's order
  int64_t max_index_ = 0;
  uint64_t seed_ = 0;
  int worker_ = 0;
  int64_t epoch_ = 0;
  int64_t position_ = 0;
};

}  // namespace hetps::data
