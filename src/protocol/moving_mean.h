// The mean of the last `capacity` samples of a measured quantity (ASHL's profiled times, a
// worker's recent step times for the straggler detector).
#pragma once

#include <cstddef>
#include <deque>
#include <numeric>

#include <nlohmann/json.hpp>

namespace hetps::protocol {

class MovingMean {
 public:
  explicit MovingMean(size_t capacity = 1) : capacity_(capacity) {}

  void add(double sample) {
    samples_.push_back(sample);
    if (samples_.size() > capacity_) samples_.pop_front();
  }
  size_t size() const { return samples_.size(); }
  // 0 when empty.
  double mean() const {
    if (samples_.empty()) return 0;
    return std::accumulate(samples_.begin(), samples_.end(), 0.0) /
           static_cast<double>(samples_.size());
  }

  nlohmann::json save_state() const { return samples_; }
  // Keeps the newest `capacity` of the saved samples.
  void restore_state(const nlohmann::json& state) {
    samples_.clear();
    for (const auto& sample : state) add(sample.get<double>());
  }

 private:
  size_t capacity_;
  std::deque<double> samples_;
};

}  // namespace hetps::protocol
