#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "engine/engine.h"
#include "engine_contract.h"
#include "small_run.h"

namespace hetps::testing {
namespace {

INSTANTIATE_TEST_SUITE_P(Engines, EngineContract, ::testing::Values("sim", "threads"));

config::Config threads_config(const std::string& protocol) {
  config::Config config = small_config(protocol);
  config.engine = "threads";
  config.train.eval_interval = 1000;
  return config;
}

TEST(ThreadsEngineTest, ACrashMidRunIsLoggedAndTheRestTrainOn) {
  config::Config config = threads_config("bsp");
  config.train.max_samples = 1'000'000'000;
  config.train.max_time = 0.6;
  config.train.eval_interval = 0.1;
  config.cluster.failures = {{.worker = 0, .time = 0.2, .kind = "crash"}};
  Outcome bsp = run_small(config);
  EXPECT_EQ(bsp.summary.stop_reason, "max_time");
  const auto failure =
      std::find_if(bsp.log.events.begin(), bsp.log.events.end(),
                   [](const auto& event) { return event.at("type") == "worker_failed"; });
  ASSERT_NE(failure, bsp.log.events.end());
  const double crashed_at = failure->at("time").get<double>();
  EXPECT_GE(crashed_at, 0.2);
  // Rounds go on closing without the dead worker: the model moves on after the crash.
  const auto after_crash = std::find_if(bsp.log.evals.begin(), bsp.log.evals.end(),
                                        [&](const auto& eval) { return eval.time > crashed_at; });
  ASSERT_NE(after_crash, bsp.log.evals.end());
  EXPECT_GT(bsp.log.evals.back().updates, after_crash->updates);
}

// A learner whose first step takes a second, as a cold thread's first steps are slow.
class SlowFirstStepLearner : public SoftmaxLearner {
 public:
  static constexpr std::chrono::seconds kColdStep{1};

  using SoftmaxLearner::SoftmaxLearner;
  double gradient(std::span<const float> params, const model::Batch& batch,
                  std::span<float> grad) override {
    if (first_step_) {
      first_step_ = false;
      std::this_thread::sleep_for(kColdStep);
    }
    return SoftmaxLearner::gradient(params, batch, grad);
  }

 private:
  bool first_step_ = true;
};

TEST(ThreadsEngineTest, TheClockStartsOnceTheWorkersHaveWarmedUp) {
  config::Config config = threads_config("asp");
  config.cluster.speeds = {1.0};  // no calibration
  const engine::ModelSource slow_to_start{
      [&] { return std::make_unique<SlowFirstStepLearner>(784, 10, config.seed); }, {}};
  CollectingListener log;
  const auto begin = std::chrono::steady_clock::now();
  const metrics::Summary summary = engine::run(config, small_data(), slow_to_start, log);
  const std::chrono::duration<double> whole_call = std::chrono::steady_clock::now() - begin;
  // Every worker's cold step ends before the clock starts, so the call lasts at least the run's
  // clock plus one cold step, however slowly this machine runs. With the cold step inside the
  // clock the run would claim all but the call's set-up.
  const std::chrono::duration<double> cold_step = SlowFirstStepLearner::kColdStep;
  EXPECT_LE(summary.total_time + cold_step.count(), whole_call.count());
}

// The error that stops a run of learners of type L, whose every step fails.
template <typename L>
std::string error_of_a_run_of() {
  config::Config config = threads_config("asp");
  config.cluster.speeds = {1.0};  // no calibration: the first failing step is a worker's
  const engine::ModelSource failing{[&] { return std::make_unique<L>(784, 10, config.seed); }, {}};
  CollectingListener log;
  try {
    engine::run(config, small_data(), failing, log);
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "no error";
}

// The workers warm up their models before the clock starts; an error there must not be lost.
TEST(ThreadsEngineTest, AWorkersErrorStopsTheRunNamingTheWorker) {
  EXPECT_THAT(error_of_a_run_of<FailingLearner>(),
              ::testing::ContainsRegex(
                  R"(^worker [0-3] \(a thread of this process\) failed: no memory left)"));
  // std::bad_alloc's own text ("std::bad_alloc") says nothing a user can act on.
  EXPECT_THAT(error_of_a_run_of<OutOfMemoryLearner>(),
              ::testing::ContainsRegex(
                  R"(^worker [0-3] \(a thread of this process\) failed: out of memory$)"));
}

TEST(ThreadsEngineTest, PaddedWorkersAreCalibratedAndUniformOnesAreNot) {
  config::Config config = threads_config("asp");
  Outcome padded = run_small(config);
  ASSERT_FALSE(padded.log.events.empty());
  EXPECT_EQ(padded.log.events.front().at("type"), "calibration");
  EXPECT_GT(padded.log.events.front().at("step_seconds").get<double>(), 0);

  config.cluster.speeds = {1.0};
  Outcome uniform = run_small(config);
  for (const auto& event : uniform.log.events) EXPECT_NE(event.at("type"), "calibration");
}

}  // namespace
}  // namespace hetps::testing
