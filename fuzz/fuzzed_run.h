// The small run whose server state the checkpoint fuzzer restores, and which its seeds were
// saved from (see checkpoint.cpp): four workers, two server shards and a 170-float model, so
// that each execution restores a whole ServerState in microseconds.
#pragma once

#include <span>
#include <stdexcept>
#include <string>

#include "config/config.h"
#include "model/learner.h"

namespace hetps::fuzzing {

// Multinomial logistic regression's shape (16 inputs, 10 classes): only the layout and the
// initial parameters are used, as a restore replaces the model.
class FuzzedLearner : public model::Learner {
 public:
  FuzzedLearner() {
    layout_.add("weight", {10, 16});
    layout_.add("bias", {10});
  }
  const params::ParamLayout& layout() const override { return layout_; }
  void initial_parameters(std::span<float> out) const override {
    for (float& value : out) value = 0.01f;
  }
  double gradient(std::span<const float>, const model::Batch&, std::span<float>) override {
    throw std::logic_error("FuzzedLearner::gradient: a restore trains nothing");
  }
  model::Evaluation evaluate(std::span<const float>, const model::Batch&) override {
    throw std::logic_error("FuzzedLearner::evaluate: a restore evaluates nothing");
  }
  double flops_per_sample() const override { return 0; }

 private:
  params::ParamLayout layout_;
};

inline config::Config fuzzed_config(const std::string& protocol) {
  config::Config config;
  config.protocol.name = protocol;
  config.data.name = "synthetic";
  config.data.batch_size = 16;
  config.cluster.workers = 4;
  config.cluster.servers = 2;
  config.cluster.speeds = {1.0, 1.0, 0.5, 0.25};
  config.train.max_samples = 4 * 16 * 40;
  config.train.lr = 0.1;
  config.train.momentum = 0.9;
  config.train.eval_interval = 0.05;
  config.cluster.worker_gflops = 0.02;
  return config;
}

}  // namespace hetps::fuzzing
