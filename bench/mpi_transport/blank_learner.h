// A model of a chosen size with nothing to learn. The server rank needs a Learner to hold a
// model and the worker an update to push; what the floats say does not matter to a transport.
#pragma once

#include <algorithm>
#include <cstdint>

#include "model/learner.h"

namespace hetps::bench {

class BlankLearner : public model::Learner {
 public:
  explicit BlankLearner(size_t floats) { layout_.add("blank", {static_cast<int64_t>(floats)}); }

  const params::ParamLayout& layout() const override { return layout_; }
  void initial_parameters(std::span<float> out) const override {
    std::fill(out.begin(), out.end(), 0.0f);
  }
  double gradient(std::span<const float>, const model::Batch&, std::span<float> grad) override {
    std::fill(grad.begin(), grad.end(), 0.0f);
    return 0;
  }
  model::Evaluation evaluate(std::span<const float>, const model::Batch&) override { return {}; }
  double flops_per_sample() const override { return 0; }

 private:
  params::ParamLayout layout_;
};

}  // namespace hetps::bench
