#include "data/sampler.h"

#include <fmt/format.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <utility>

#include "data/random.h"

namespace hetps::data {

BatchSampler::BatchSampler(std::vector<int64_t> indices, uint64_t seed, int worker)
    : indices_(std::move(indices)), order_(indices_.size()), seed_(seed), worker_(worker) {
  if (indices_.empty()) {
    throw std::invalid_argument(fmt::format("worker {} has no training samples", worker));
  }
  const auto [lowest, highest] = std::minmax_element(indices_.begin(), indices_.end());
  if (*lowest < 0) {
    throw std::invalid_argument(
        fmt::format("worker {}'s shard holds the negative sample index {}", worker, *lowest));
  }
  max_index_ = *highest;
  start_epoch(0);
}

// Each epoch's order is drawn afresh from (seed, worker, epoch) rather than from one running
// generator, so a checkpoint is two integers and restoring it costs one shuffle.
void BatchSampler::start_epoch(int64_t epoch) {
  epoch_ = epoch;
  position_ = 0;
  std::copy(indices_.begin(), indices_.end(), order_.begin());
  std::mt19937_64 rng(derive_seed(seed_, SeedDomain::kSampler,
                                  {static_cast<uint64_t>(worker_), static_cast<uint64_t>(epoch)}));
  shuffle(order_, rng);
}

void BatchSampler::next_batch(const Dataset& dataset, int batch_size, float* inputs_out,
                              int64_t* labels_out) {
  if (batch_size < 1) {
    throw std::invalid_argument(fmt::format("batch size {} must be at least 1", batch_size));
  }
  if (max_index_ >= dataset.size()) {
    throw std::invalid_argument(
        fmt::format("worker {}'s shard holds sample {} but the data set has only {}", worker_,
                    max_index_, dataset.size()));
  }
  const int64_t row = dataset.sample_floats();
  for (int b = 0; b < batch_size; ++b) {
    const int64_t sample = order_[position_];
    std::copy_n(dataset.sample(sample), row, inputs_out + b * row);
    labels_out[b] = dataset.labels[sample];
    if (++position_ == shard_size()) start_epoch(epoch_ + 1);
  }
}

void BatchSampler::restore(const State& state) {
  if (state.epoch < 0 || state.position < 0 || state.position >= shard_size()) {
    throw std::invalid_argument(fmt::format(
        "sampler state (epoch {}, position {}) does not fit worker {}'s shard of {} samples",
        state.epoch, state.position, worker_, shard_size()));
  }
  start_epoch(state.epoch);
  position_ = state.position;
}

}  // namespace hetps::data
