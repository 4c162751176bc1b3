// The mpi engine: the contract every engine keeps, and what only MPI has (ranks, hosts, the
// size of the job). Run by every rank; results that only rank 0 sees are checked there.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include <fmt/format.h>

#include "engine/engine.h"
#include "engine/engine_contract.h"
#include "engine/small_run.h"
#include "mpi/rank_layout.h"
#include "mpi/session.h"
#include "mpi/shared_memory_copies.h"

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

// A resume cannot change its run's config: only the job's size is a remedy there.
TEST(MpiEngineTest, AJobOfTheWrongSizeIsToldTheRemediesItHas) {
  config::ClusterConfig cluster;
  cluster.servers = 1;
  cluster.workers = 2;
  const auto message = [&](int world_size, bool workers_may_change) {
    try {
      mpi::check_job_shape(cluster, world_size, workers_may_change);
    } catch (const mpi::JobShapeError& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message(3, true), "accepted");
  const std::string prefix =
      "engine = \"mpi\" needs one rank per server and per worker: cluster.servers = 1 + "
      "cluster.workers = 2 = 3 ranks, ";
  EXPECT_EQ(message(5, true),
            prefix + "but the job has 5 (-np 5); start it with -np 3 or set cluster.workers = 4");
  EXPECT_EQ(message(5, false), prefix + "but the job has 5 (-np 5); start it with -np 3");
  EXPECT_EQ(message(1, true),
            prefix +
                "but the job has 1 (started without mpirun, or with -np 1); start it with "
                "`mpirun -np 3 hetps ...` (or `srun -n 3 hetps ...`)");
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

// An evaluation that takes long, as one on a large test set does: the test set, many times.
class LongEvaluation : public SoftmaxLearner {
 public:
  using SoftmaxLearner::SoftmaxLearner;
  model::Evaluation evaluate(std::span<const float> params, const model::Batch& data) override {
    model::Evaluation evaluation;
    for (int pass = 0; pass < 100; ++pass) evaluation = SoftmaxLearner::evaluate(params, data);
    return evaluation;
  }
};

// Rank 0's evaluations count on no rank's clock: a worker that crashes at 0.05 s of engine time
// does so after the evaluation at the start, however long it takes, and rank 0 logs the crash
// no earlier (a worker whose clock ran on would crash during it, and rank 0, whose clock stood
// at 0, would log the crash at about 0).
TEST(MpiEngineTest, TheWorkersClocksStandStillWhileRankZeroEvaluates) {
  config::Config config = mpi_config("asp");
  config.cluster.failures = {{.worker = 1, .time = 0.05, .kind = "crash"}};
  config.train.max_samples = 1'000'000'000;
  // The run goes on past the crash, by far more than a loaded host's scheduling delays.
  config.train.max_time = 1;
  const engine::ModelSource long_evaluations{
      [seed = config.seed] { return std::make_unique<LongEvaluation>(784, 10, seed); }, {}};
  CollectingListener log;
  engine::run(config, small_data(), long_evaluations, log);
  if (mpi::world_rank() != 0) return;
  const auto crash = std::find_if(log.events.begin(), log.events.end(), [](const auto& event) {
    return event.at("type") == "worker_failed";
  });
  ASSERT_NE(crash, log.events.end());
  // The start barrier aligns the ranks' clocks to within the time slice a rank may wait for a
  // core (ranks outnumber cores here): far less than half the crash time.
  EXPECT_GE(crash->at("time").get<double>(), 0.05 / 2);
}

// Ranks that share a host copy large messages twice when OpenMPI has no single-copy mechanism
// (CI sets OMPI_MCA_btl_vader_single_copy_mechanism=none): rank 0 says so in the run log.
TEST(MpiEngineTest, RankZeroWarnsWhenSharedMemoryCopiesEveryMessageTwice) {
  const Outcome asp = run_small(mpi_config("asp"));
  if (mpi::world_rank() != 0) return;
  const bool copied_twice = mpi::mpi_setting("btl_vader_single_copy_mechanism") == "none";
  const auto warnings =
      std::count_if(asp.log.events.begin(), asp.log.events.end(), [](const nlohmann::json& event) {
        return event.at("type") == "warning" &&
               event.at("message").get<std::string>().find("single-copy") != std::string::npos;
      });
  EXPECT_EQ(warnings, copied_twice ? 1 : 0);
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
