// Checkpoints and resume on the mpi engine (issue 9): a run stopped through the stop flag after
// some checkpoints and resumed from the last one loses no update and applies none twice
// (engine/checkpointed_runs.h), as on the threads engine. Every rank runs each test; only rank 0
// has checkpoints, logs and summaries, so it alone checks them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/checkpointed_runs.h"
#include "every_rank.h"
#include "mpi/session.h"

namespace hetps::testing {
namespace {

bool is_rank_0() { return mpi::world_rank() == 0; }

// One server rank and a worker on every other rank, padded as the threads engine's checkpoint
// tests are: slow enough for several checkpoints in a few tenths of a second.
config::Config checkpointed_config(const std::string& protocol) {
  config::Config config = small_config(protocol);
  config.engine = "mpi";
  config.cluster.workers = mpi::world_size() - 1;
  config.cluster.speeds = {0.2, 0.1, 0.05};
  config.train.max_samples = config.cluster.workers * 16 * 250;
  config.train.eval_interval = 0.05;
  config.run.checkpoint_interval = 0.03;
  return config;
}

TEST(MpiCheckpointTest, AStoppedAspRunResumesWithNoUpdateLostOrAppliedTwice) {
  meet_everyone();
  expect_stopped_run_resumes_exactly(checkpointed_config("asp"), 16, is_rank_0());
}

TEST(MpiCheckpointTest, AStoppedBspRunResumesWithNoUpdateLostOrAppliedTwice) {
  meet_everyone();
  const config::Config config = checkpointed_config("bsp");
  expect_stopped_run_resumes_exactly(config, config.cluster.workers * 16, is_rank_0());
}

// Petrel's leaders gather their members' updates over worker-to-worker messages: a checkpoint
// waits for every merge, and the resumed leaders gather again from the replies held back.
TEST(MpiCheckpointTest, AStoppedPetrelRunResumesWithNoUpdateLostOrAppliedTwice) {
  meet_everyone();
  config::Config config = checkpointed_config("petrel");
  config.protocol.params["profile_steps"] = 2.0;
  expect_stopped_run_resumes_exactly(config, std::nullopt, is_rank_0());
}

// A crash and a hang before the stop are in the checkpoint and not injected again (the crashed
// rank stays gone, the hung one silent); a crash due after the resume still comes.
TEST(MpiCheckpointTest, FailuresComeOnceAcrossAResume) {
  meet_everyone();
  config::Config config = checkpointed_config("asp");
  config.train.max_samples = 1'000'000'000;
  config.train.max_time = 0.8;
  config.cluster.failures = {{.worker = 0, .time = 0.0, .kind = "hang"},
                             {.worker = 1, .time = 0.0, .kind = "crash"},
                             {.worker = 2, .time = 0.5, .kind = "crash"}};
  config.run.stall_warning_s = 100;
  config.run.stall_timeout_s = 100;
  const CheckpointedRun stopped = run_checkpointed(config, 2);
  meet_everyone();
  const CheckpointedRun resumed = run_checkpointed(
      config, kNoStop, is_rank_0() ? &stopped.checkpoints.back() : nullptr, &stopped);
  if (!is_rank_0()) return;
  ASSERT_TRUE(stopped.stopped_at);
  ASSERT_LT(*stopped.stopped_at, 0.5) << "the stop comes well before the second crash";
  ASSERT_TRUE(resumed.summary);
  EXPECT_EQ(resumed.summary->stop_reason, "max_time") << "a hung worker is not a gone one";
  std::vector<int> failed;
  int hangs = 0;
  for (const nlohmann::json& event : resumed.log.events) {
    if (event.at("type") == "worker_failed") failed.push_back(event.at("worker").get<int>());
    if (event.at("type") == "worker_hung") ++hangs;
  }
  EXPECT_EQ(failed, (std::vector<int>{1, 2}));
  EXPECT_EQ(hangs, 1);
  for (const Checkpoint& checkpoint : resumed.checkpoints) {
    EXPECT_EQ(samples_drawn(config, checkpoint)[0], 0) << "the hung worker never trained";
    // A crash loses the batch its worker was computing: drawn, never pushed.
    if (checkpoint.time < 0.5) expect_every_drawn_sample_accounted_for(config, checkpoint);
  }
}

// With two server shards rank 1 holds half the model and its optimizer state, and takes every
// push's slice of it on its own: its checkpoint waits for the slices of the updates rank 0
// holds, and a resumed run goes on from both halves.
TEST(MpiCheckpointTest, AStoppedRunOfTwoServerShardsResumesWithNoUpdateLostOrAppliedTwice) {
  meet_everyone();
  for (const std::string protocol : {"asp", "bsp"}) {
    config::Config config = checkpointed_config(protocol);
    config.cluster.servers = 2;
    config.cluster.workers = mpi::world_size() - 2;
    config.train.max_samples = config.cluster.workers * 16 * 250;
    expect_stopped_run_resumes_exactly(config, protocol == "asp" ? 16 : config.cluster.workers * 16,
                                       is_rank_0());
    meet_everyone();
  }
}

}  // namespace
}  // namespace hetps::testing
