#include "bench/bare_loop.h"

#include <torch/nn/functional/loss.h>
#include <torch/optim/sgd.h>

#include <chrono>

#include "bench/random_batches.h"
#include "model/register.h"

namespace hetps::bench {

struct BareLoop::Training {
  explicit Training(const BareLoopOptions& options)
      : module(model::make_module(options.model, options.input, options.classes, options.seed)),
        optimizer(module.ptr()->parameters(),
                  torch::optim::SGDOptions(options.lr).momentum(options.momentum)),
        batches(options.input, options.classes, options.batch_size, kBenchmarkBatches,
                options.seed),
        input(options.input) {}

  torch::nn::AnyModule module;
  torch::optim::SGD optimizer;
  RandomBatches batches;
  model::InputShape input;
};

BareLoop::BareLoop(const BareLoopOptions& options)
    : training_(std::make_unique<Training>(options)) {}

BareLoop::~BareLoop() = default;

double BareLoop::step() {
  const model::Batch batch = training_->batches.next();
  const auto& input = training_->input;
  const auto images = torch::from_blob(const_cast<float*>(batch.inputs),
                                       {batch.size, input.channels, input.height, input.width});
  const auto labels =
      torch::from_blob(const_cast<int64_t*>(batch.labels), {batch.size}, torch::kLong);
  training_->optimizer.zero_grad();
  auto loss = torch::nn::functional::cross_entropy(training_->module.forward<torch::Tensor>(images),
                                                   labels);
  loss.backward();
  training_->optimizer.step();
  return loss.item<double>();
}

double bare_loop_samples_per_second(const BareLoopOptions& options, int64_t steps) {
  BareLoop loop(options);
  loop.step();
  const auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < steps; ++i) loop.step();
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  return static_cast<double>(steps * options.batch_size) / elapsed.count();
}

}  // namespace hetps::bench
