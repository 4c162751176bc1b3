// Random images and labels, generated once and served batch after batch: data for benchmarks,
// where what the data says does not change the work.
#pragma once

#include <cstdint>
#include <vector>

#include "model/learner.h"

namespace hetps::bench {

// How many distinct batches a benchmark cycles through: enough that it does not train on one
// cached batch.
constexpr int64_t kBenchmarkBatches = 64;

class RandomBatches {
 public:
  // `batches` batches of `batch_size` samples: inputs uniform in [0, 1), labels uniform.
  RandomBatches(const model::InputShape& input, int classes, int64_t batch_size, int64_t batches,
                uint64_t seed);

  // The next batch, cycling through them.
  model::Batch next();
  int64_t batch_size() const { return batch_size_; }

 private:
  int64_t sample_floats_;
  int64_t batch_size_;
  int64_t batches_;
  int64_t next_ = 0;
  std::vector<float> inputs_;
  std::vector<int64_t> labels_;
};

}  // namespace hetps::bench
