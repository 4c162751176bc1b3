// The mpi engine: the contract every engine keeps, and what only MPI has (ranks, hosts, the
// size of the job). Run by every rank; results that only rank 0 sees are checked there.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "engine/engine.h"
#include "engine/engine_contract.h"
#include "engine/small_run.h"
#include "mpi/session.h"

namespace hetps::testing {
namespace {

INSTANTIATE_TEST_SUITE_P(Mpi, EngineContract, ::testing::Values("mpi"));

// One server rank and a worker on every other rank.
config::Config mpi_config(const std::string& protocol) {
  config::Config config = small_config(protocol);
  config.engine = "mpi";
  config.cluster.workers = mpi::world_size() - 1;
  config.cluster.speeds = {1.0};
  config.train.eval_interval = 1000;
  return config;
}

TEST(MpiEngineTest, AJobOfTheWrongSizeIsRefusedOnEveryRankBeforeAnyWork) {
  config::Config config = mpi_config("bsp");
  config.cluster.workers = mpi::world_size() - 2;
  CollectingListener log;
  try {
    engine::run(config, small_data(), softmax_source(784, 10, config.seed), log);
    FAIL() << "a job of " << mpi::world_size() << " ranks cannot run " << config.cluster.workers
           << " workers and a server";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), ::testing::HasSubstr("cluster.servers = 1"));
    EXPECT_THAT(error.what(),
                ::testing::HasSubstr(fmt::format("cluster.workers = {}", config.cluster.workers)));
    EXPECT_THAT(error.what(), ::testing::HasSubstr(fmt::format("-np {}", mpi::world_size())));
  }
  EXPECT_TRUE(log.lines.empty());
}

// A learner whose every step fails, as a rank out of memory would.
class FailingLearner : public SoftmaxLearner {
 public:
  using SoftmaxLearner::SoftmaxLearner;
  double gradient(std::span<const float>, const model::Batch&, std::span<float>) override {
    throw std::runtime_error("no memory left (injected)");
  }
};

TEST(MpiEngineTest, AWorkersErrorStopsTheRunWithItsRankAndHost) {
  config::Config config = mpi_config("asp");
  const engine::ModelSource failing_on_rank_2{
      [seed = config.seed]() -> std::unique_ptr<model::Learner> {
        if (mpi::world_rank() == 2) return std::make_unique<FailingLearner>(784, 10, seed);
        return std::make_unique<SoftmaxLearner>(784, 10, seed);
      },
      {}};
  CollectingListener log;
  if (!engine::is_primary_process(config)) {
    EXPECT_NO_THROW(engine::run(config, small_data(), failing_on_rank_2, log));
    return;
  }
  try {
    engine::run(config, small_data(), failing_on_rank_2, log);
    FAIL() << "a worker's error must stop the run";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), ::testing::HasSubstr(fmt::format(
                                  "worker 1 (rank 2 on host {}) failed: no memory left (injected)",
                                  mpi::host_name())));
  }
}

TEST(MpiEngineTest, OnlyRankZeroIsThePrimaryProcess) {
  EXPECT_EQ(engine::is_primary_process(mpi_config("asp")), mpi::world_rank() == 0);
}

TEST(MpiEngineTest, ARunEndsOnEveryRankAndOnlyRankZeroReportsIt) {
  const config::Config config = mpi_config("asp");
  Outcome asp = run_small(config);
  if (mpi::world_rank() != 0) {
    EXPECT_TRUE(asp.log.lines.empty());
    EXPECT_EQ(asp.summary.samples, 0);
    return;
  }
  EXPECT_EQ(asp.summary.engine, "mpi");
  EXPECT_EQ(asp.summary.stop_reason, "max_samples");
  EXPECT_EQ(asp.summary.samples, config.train.max_samples);
}

}  // namespace
}  // namespace hetps::testing
