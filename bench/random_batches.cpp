#include "bench/random_batches.h"

#include <random>
#include <stdexcept>
#include <string>

namespace hetps::bench {

RandomBatches::RandomBatches(const model::InputShape& input, int classes, int64_t batch_size,
                             int64_t batches, uint64_t seed)
    : sample_floats_(input.floats()), batch_size_(batch_size), batches_(batches) {
  if (batch_size < 1 || batches < 1) {
    throw std::invalid_argument("RandomBatches: batch_size and batches must be at least 1, got " +
                                std::to_string(batch_size) + " and " + std::to_string(batches));
  }
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
  std::uniform_int_distribution<int64_t> label(0, classes - 1);
  inputs_.resize(static_cast<size_t>(batches * batch_size * sample_floats_));
  labels_.resize(static_cast<size_t>(batches * batch_size));
  for (auto& value : inputs_) value = pixel(random);
  for (auto& value : labels_) value = label(random);
}

model::Batch RandomBatches::next() {
  const int64_t first = next_ * batch_size_;
  next_ = (next_ + 1) % batches_;
  return model::Batch{inputs_.data() + first * sample_floats_, labels_.data() + first, batch_size_};
}

}  // namespace hetps::bench
