// The yardstick of DESIGN.md "The hot path": a bare libtorch training loop (the registry's
// module, torch::optim::SGD, random batches, nothing of hetps in between). This header includes
// no libtorch, so any benchmark can compare itself with the loop.
//
//   double bare = bench::bare_loop_samples_per_second({.momentum = 0.9}, /*steps=*/500);
//   state.counters["ratio_to_bare"] = simulated_samples_per_second / bare;
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "model/learner.h"

namespace hetps::bench {

struct BareLoopOptions {
  std::string model = "mlp";
  model::InputShape input;
  int classes = 10;
  int64_t batch_size = 32;
  double lr = 0.05;
  double momentum = 0;
  uint64_t seed = 1;
};

// The loop, one step at a time.
class BareLoop {
 public:
  explicit BareLoop(const BareLoopOptions& options);
  ~BareLoop();
  BareLoop(const BareLoop&) = delete;
  BareLoop& operator=(const BareLoop&) = delete;

  // One SGD step on the next batch; returns the batch's loss before the step.
  double step();

 private:
  struct Training;
  std::unique_ptr<Training> training_;
};

// Samples per second of `steps` steps of the loop, after one warm-up step, on the wall clock.
double bare_loop_samples_per_second(const BareLoopOptions& options, int64_t steps);

}  // namespace hetps::bench
