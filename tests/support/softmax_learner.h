// A libtorch-free Learner for core tests: multinomial logistic regression, exact gradients.
#pragma once

#include <cmath>
#include <memory>
#include <new>
#include <random>
#include <stdexcept>
#include <vector>

#include "engine/engine.h"
#include "model/learner.h"

namespace hetps::testing {

class SoftmaxLearner : public model::Learner {
 public:
  SoftmaxLearner(int inputs, int classes, uint64_t seed)
      : inputs_(inputs), classes_(classes), seed_(seed) {
    layout_.add("weight", {classes, inputs});
    layout_.add("bias", {classes});
  }

  const params::ParamLayout& layout() const override { return layout_; }

  void initial_parameters(std::span<float> out) const override {
    std::mt19937_64 rng(seed_);
    std::normal_distribution<float> normal(0.0f, 0.01f);
    for (float& value : out) value = normal(rng);
  }

  double gradient(std::span<const float> params, const model::Batch& batch,
                  std::span<float> grad) override {
    std::fill(grad.begin(), grad.end(), 0.0f);
    double loss = 0;
    std::vector<double> p(static_cast<size_t>(classes_));
    for (int64_t n = 0; n < batch.size; ++n) {
      const float* x = batch.inputs + n * inputs_;
      probabilities(params, x, p);
      const auto label = static_cast<size_t>(batch.labels[n]);
      loss -= std::log(std::max(p[label], 1e-12));
      for (int c = 0; c < classes_; ++c) {
        double error = (p[static_cast<size_t>(c)] - (static_cast<size_t>(c) == label ? 1.0 : 0.0)) /
                       static_cast<double>(batch.size);
        float* row = grad.data() + static_cast<size_t>(c) * inputs_;
        for (int i = 0; i < inputs_; ++i) row[i] += static_cast<float>(error * x[i]);
        grad[static_cast<size_t>(classes_) * inputs_ + c] += static_cast<float>(error);
      }
    }
    return loss / static_cast<double>(batch.size);
  }

  model::Evaluation evaluate(std::span<const float> params, const model::Batch& data) override {
    std::vector<double> p(static_cast<size_t>(classes_));
    double loss = 0;
    int64_t correct = 0;
    for (int64_t n = 0; n < data.size; ++n) {
      probabilities(params, data.inputs + n * inputs_, p);
      const auto label = static_cast<size_t>(data.labels[n]);
      loss -= std::log(std::max(p[label], 1e-12));
      if (std::max_element(p.begin(), p.end()) - p.begin() == static_cast<long>(label)) ++correct;
    }
    return {static_cast<double>(correct) / static_cast<double>(data.size),
            loss / static_cast<double>(data.size)};
  }

  double flops_per_sample() const override { return 6.0 * inputs_ * classes_; }

 private:
  void probabilities(std::span<const float> params, const float* x, std::vector<double>& p) const {
    double largest = -1e300;
    for (int c = 0; c < classes_; ++c) {
      const float* row = params.data() + static_cast<size_t>(c) * inputs_;
      double z = params[static_cast<size_t>(classes_) * inputs_ + c];
      for (int i = 0; i < inputs_; ++i) z += static_cast<double>(row[i]) * x[i];
      p[static_cast<size_t>(c)] = z;
      largest = std::max(largest, z);
    }
    double sum = 0;
    for (double& value : p) sum += (value = std::exp(value - largest));
    for (double& value : p) value /= sum;
  }

  int inputs_;
  int classes_;
  uint64_t seed_;
  params::ParamLayout layout_;
};

// A learner whose every step fails, as a worker out of memory would.
class FailingLearner : public SoftmaxLearner {
 public:
  using SoftmaxLearner::SoftmaxLearner;
  double gradient(std::span<const float>, const model::Batch&, std::span<float>) override {
    throw std::runtime_error("no memory left (injected)");
  }
};

class OutOfMemoryLearner : public SoftmaxLearner {
 public:
  using SoftmaxLearner::SoftmaxLearner;
  double gradient(std::span<const float>, const model::Batch&, std::span<float>) override {
    throw std::bad_alloc();
  }
};

// Softmax learners for an engine: a fresh one per call, all alike.
inline engine::ModelSource softmax_source(int inputs, int classes, uint64_t seed) {
  return {[=] { return std::make_unique<SoftmaxLearner>(inputs, classes, seed); }, {}};
}

}  // namespace hetps::testing
