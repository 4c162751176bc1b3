// Labelled image data in memory, ready for training: inputs as floats in [0, 1], row-major.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace hetps::data {

// Bad or missing data: the message names the file and what is wrong with it.
class DataError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A data set fetch stopped by SIGINT or SIGTERM: nothing was written under the data directory.
class FetchStopped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Dataset {
  int channels = 1;
  int height = 28;
  int width = 28;
  int classes = 10;
  std::vector<float> inputs;    // size() × sample_floats()
  std::vector<int64_t> labels;  // size()

  int64_t size() const { return static_cast<int64_t>(labels.size()); }
  int64_t sample_floats() const { return int64_t{channels} * height * width; }
  const float* sample(int64_t i) const { return inputs.data() + i * sample_floats(); }
};

struct DataSplit {
  Dataset train;
  Dataset test;
};

}  // namespace hetps::data
