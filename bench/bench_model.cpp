// The model's hot path against a bare libtorch loop, on the MLP, batch 32, lr 0.05, in one
// process with the same thread settings. items_per_second is samples per second.
#include <benchmark/benchmark.h>

#include <vector>

#include "bench/bare_loop.h"
#include "bench/random_batches.h"
#include "model/learner.h"

namespace hetps::bench {
namespace {

constexpr int64_t kBatchSize = 32;
constexpr double kLearningRate = 0.05;

// weights -= lr · grad, vectorized. At -O2 GCC vectorizes a loop only when no scalar remainder
// and no overlap check are needed: hence the loop over whole blocks of 16 and the restrict
// pointers. Run scalar, the plain loop took a quarter of this step (measured on one thread).
void sgd_update(std::vector<float>& weights, const std::vector<float>& grad, float lr) {
  float* __restrict__ w = weights.data();
  const float* __restrict__ g = grad.data();
  const size_t blocked = weights.size() & ~size_t{15};
  for (size_t i = 0; i < blocked; ++i) w[i] -= lr * g[i];
  for (size_t i = blocked; i < weights.size(); ++i) w[i] -= lr * g[i];
}

// Argument: the momentum, in hundredths (0 and 90).
void BM_BareLibtorchLoop(benchmark::State& state) {
  BareLoopOptions options;
  options.batch_size = kBatchSize;
  options.lr = kLearningRate;
  options.momentum = static_cast<double>(state.range(0)) / 100.0;
  BareLoop loop(options);
  for (auto _ : state) benchmark::DoNotOptimize(loop.step());
  state.SetItemsProcessed(state.iterations() * kBatchSize);
}
BENCHMARK(BM_BareLibtorchLoop)
    ->ArgName("momentum_pct")
    ->Arg(0)
    ->Arg(90)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// Learner::gradient into a flat buffer, then plain SGD on the flat parameters: the work one
// simulated worker step costs.
void BM_LearnerGradient(benchmark::State& state) {
  const model::InputShape input;
  const auto learner = model::make_learner("mlp", input, 10, /*seed=*/1);
  std::vector<float> weights(learner->layout().size());
  std::vector<float> grad(weights.size());
  learner->initial_parameters(weights);
  RandomBatches batches(input, 10, kBatchSize, kBenchmarkBatches, /*seed=*/1);
  for (auto _ : state) {
    benchmark::DoNotOptimize(learner->gradient(weights, batches.next(), grad));
    sgd_update(weights, grad, static_cast<float>(kLearningRate));
  }
  state.SetItemsProcessed(state.iterations() * kBatchSize);
}
BENCHMARK(BM_LearnerGradient)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace hetps::bench
