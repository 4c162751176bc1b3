#include <gtest/gtest.h>

#include "engine/engine.h"
#include "small_run.h"

namespace hetps::engine {
namespace {

using testing::CollectingListener;
using testing::Outcome;
using testing::run_small;
using testing::small_config;
using testing::small_data;

TEST(SimEngineTest, SameConfigAndSeedGiveTheSameLogBitForBit) {
  for (const char* protocol : {"bsp", "asp", "ssp", "local_sgd"}) {
    auto config = small_config(protocol);
    config.cluster.random_stragglers.rate_per_min = 30;
    config.train.eval_interval = 0.5;  // stragglers stretch the run: keep evaluations few
    Outcome first = run_small(config);
    Outcome second = run_small(config);
    EXPECT_EQ(first.log.lines, second.log.lines) << protocol;
    EXPECT_GT(first.log.lines.size(), 3u) << protocol;
    config.seed = 2;
    Outcome other_seed = run_small(config);
    EXPECT_NE(first.log.evals.back().model_hash, other_seed.log.evals.back().model_hash)
        << protocol;
  }
}

TEST(SimEngineTest, BspIsNeverStaleAndSpendsTheBudgetExactly) {
  Outcome bsp = run_small(small_config("bsp"));
  EXPECT_EQ(bsp.summary.max_staleness, 0);
  EXPECT_EQ(bsp.summary.samples, 4 * 16 * 40);
  EXPECT_EQ(bsp.summary.updates, 40);
  EXPECT_EQ(bsp.summary.stop_reason, "max_samples");
  EXPECT_GT(bsp.summary.final_accuracy, bsp.log.evals.front().test_accuracy + 0.2);
}

TEST(SimEngineTest, BspWaitsForTheSlowestWorkerAndAspDoesNot) {
  Outcome bsp = run_small(small_config("bsp"));
  Outcome asp = run_small(small_config("asp"));
  EXPECT_GT(asp.summary.max_staleness, 0);
  // Same samples: BSP's rounds last as long as the speed-0.25 worker's step; ASP's fast
  // workers keep going. Three fast-ish workers at 1, 1, 0.5 against a round of 4 steps at 0.25.
  EXPECT_GT(bsp.summary.total_time, 1.8 * asp.summary.total_time);
}

TEST(SimEngineTest, BspRoundTimeIsTheSlowestStepPlusCommunication) {
  auto config = small_config("bsp");
  config.cluster.compute_noise = 0;
  config.cluster.speeds = {1.0, 0.5};
  config.cluster.workers = 2;
  config.train.max_samples = 2 * 16 * 10;
  Outcome bsp = run_small(config);
  testing::SoftmaxLearner learner(784, 10, 1);
  const double slow_step = learner.flops_per_sample() * 16 / (0.02e9 * 0.5);
  const double per_round = bsp.summary.total_time / 10;
  EXPECT_GT(per_round, slow_step);
  EXPECT_LT(per_round, slow_step * 1.15) << "communication should be ~10% of a round";
}

TEST(SimEngineTest, SspBoundsTheStalenessThatAspLetsGrow) {
  auto config = small_config("ssp");
  config.protocol.params["staleness"] = 0.0;
  Outcome lockstep = run_small(config);
  Outcome asp = run_small(small_config("asp"));
  // s = 0: every worker is at most one step ahead, so an update is at most (workers − 1)
  // versions stale plus the updates of the same step: below 2 × workers.
  EXPECT_LT(lockstep.summary.max_staleness, 2 * 4);
  EXPECT_GT(asp.summary.max_staleness, lockstep.summary.max_staleness);
}

TEST(SimEngineTest, LocalSgdCommunicatesOncePerHSteps) {
  auto config = small_config("local_sgd");
  config.protocol.params["local_steps"] = 4.0;
  Outcome local = run_small(config);
  Outcome bsp = run_small(small_config("bsp"));
  EXPECT_EQ(local.summary.samples, bsp.summary.samples);
  EXPECT_EQ(local.summary.updates * 4, bsp.summary.updates);
  EXPECT_EQ(local.summary.bytes_to_server * 4, bsp.summary.bytes_to_server);
  EXPECT_GT(local.summary.final_accuracy, 0.5);
}

TEST(SimEngineTest, StopsAtMaxTime) {
  auto config = small_config("asp");
  config.train.max_time = 0.1;
  Outcome asp = run_small(config);
  EXPECT_EQ(asp.summary.stop_reason, "max_time");
  EXPECT_DOUBLE_EQ(asp.summary.total_time, 0.1);
  EXPECT_LT(asp.summary.samples, config.train.max_samples);
}

TEST(SimEngineTest, UnknownProtocolIsABadConfiguration) {
  auto config = small_config("nope");
  CollectingListener log;
  EXPECT_THROW(run(config, small_data(), testing::softmax_source(784, 10, 1), log),
               std::invalid_argument);
}

}  // namespace
}  // namespace hetps::engine
