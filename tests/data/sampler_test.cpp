#include "data/sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace hetps::data {
namespace {

// `samples` one-pixel-high, two-pixel-wide samples: sample i is {i, i + 0.5} with label i.
Dataset numbered_dataset(int64_t samples) {
  Dataset dataset;
  dataset.height = 1;
  dataset.width = 2;
  for (int64_t i = 0; i < samples; ++i) {
    dataset.inputs.push_back(static_cast<float>(i));
    dataset.inputs.push_back(static_cast<float>(i) + 0.5f);
    dataset.labels.push_back(i);
  }
  return dataset;
}

// The labels, i.e. sample indices, of the next `batch_size` samples.
std::vector<int64_t> next_labels(BatchSampler& sampler, const Dataset& dataset, int batch_size) {
  std::vector<float> inputs(static_cast<size_t>(batch_size * dataset.sample_floats()));
  std::vector<int64_t> labels(static_cast<size_t>(batch_size));
  sampler.next_batch(dataset, batch_size, inputs.data(), labels.data());
  for (int b = 0; b < batch_size; ++b) {
    EXPECT_EQ(inputs[2 * b], static_cast<float>(labels[b]));
    EXPECT_EQ(inputs[2 * b + 1], static_cast<float>(labels[b]) + 0.5f);
  }
  return labels;
}

std::vector<int64_t> sorted(std::vector<int64_t> values) {
  std::sort(values.begin(), values.end());
  return values;
}

const std::vector<int64_t> kShard = {1, 4, 5, 8, 9};

TEST(DataSampler, AnEpochVisitsEveryShardSampleOnce) {
  const Dataset dataset = numbered_dataset(10);
  BatchSampler sampler(kShard, 3, 0);
  EXPECT_EQ(sorted(next_labels(sampler, dataset, 5)), kShard);
  EXPECT_EQ(sampler.epoch(), 1);
  EXPECT_EQ(sampler.position(), 0);
}

TEST(DataSampler, ABatchWrapsIntoTheNextEpoch) {
  const Dataset dataset = numbered_dataset(10);
  BatchSampler sampler(kShard, 3, 0);
  const std::vector<int64_t> first = next_labels(sampler, dataset, 3);
  EXPECT_EQ((BatchSampler::State{0, 3}), sampler.state());
  const std::vector<int64_t> second = next_labels(sampler, dataset, 3);
  EXPECT_EQ((BatchSampler::State{1, 1}), sampler.state());

  std::vector<int64_t> epoch0(first);
  epoch0.insert(epoch0.end(), second.begin(), second.begin() + 2);
  EXPECT_EQ(sorted(epoch0), kShard);
  EXPECT_NE(std::find(kShard.begin(), kShard.end(), second[2]), kShard.end());
}

TEST(DataSampler, OrderIsSeededByRunSeedWorkerAndEpoch) {
  std::vector<int64_t> shard(20);
  std::iota(shard.begin(), shard.end(), int64_t{0});
  const Dataset dataset = numbered_dataset(20);
  BatchSampler a(shard, 3, 0);
  BatchSampler b(shard, 3, 0);
  BatchSampler other_worker(shard, 3, 1);
  BatchSampler other_seed(shard, 4, 0);
  const std::vector<int64_t> epoch0 = next_labels(a, dataset, 20);
  EXPECT_EQ(next_labels(b, dataset, 20), epoch0);
  EXPECT_NE(next_labels(other_worker, dataset, 20), epoch0);
  EXPECT_NE(next_labels(other_seed, dataset, 20), epoch0);
  EXPECT_NE(next_labels(a, dataset, 20), epoch0);  // epoch 1 is reshuffled
}

TEST(DataSampler, RestoringAStateReplaysTheSameBatches) {
  const Dataset dataset = numbered_dataset(10);
  BatchSampler original(kShard, 9, 2);
  for (int i = 0; i < 4; ++i) next_labels(original, dataset, 3);
  const BatchSampler::State saved = original.state();
  std::vector<int64_t> expected;
  for (int i = 0; i < 3; ++i) {
    const auto batch = next_labels(original, dataset, 3);
    expected.insert(expected.end(), batch.begin(), batch.end());
  }

  BatchSampler restored(kShard, 9, 2);
  restored.restore(saved);
  EXPECT_EQ(restored.state(), saved);
  std::vector<int64_t> replayed;
  for (int i = 0; i < 3; ++i) {
    const auto batch = next_labels(restored, dataset, 3);
    replayed.insert(replayed.end(), batch.begin(), batch.end());
  }
  EXPECT_EQ(replayed, expected);
}

TEST(DataSampler, RejectsBadUse) {
  const Dataset dataset = numbered_dataset(5);
  EXPECT_THROW(BatchSampler({}, 1, 0), std::invalid_argument);
  EXPECT_THROW(BatchSampler({3, -1}, 1, 0), std::invalid_argument);
  BatchSampler sampler(kShard, 1, 0);  // holds samples 8 and 9, beyond the 5 in `dataset`
  std::vector<float> inputs(2);
  std::vector<int64_t> labels(1);
  EXPECT_THROW(sampler.next_batch(dataset, 1, inputs.data(), labels.data()), std::invalid_argument);
  EXPECT_THROW(sampler.next_batch(numbered_dataset(10), 0, inputs.data(), labels.data()),
               std::invalid_argument);
  EXPECT_THROW(sampler.restore({0, 5}), std::invalid_argument);
  EXPECT_THROW(sampler.restore({-1, 0}), std::invalid_argument);
}

}  // namespace
}  // namespace hetps::data
