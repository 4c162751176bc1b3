// Checkpoints and resume on the threads engine (issue 9): a run stopped through the stop flag
// after some checkpoints and resumed from the last one loses no update and applies none twice
// (checkpointed_runs.h), with leaders, Petrel, crashes and hangs.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "checkpoint/checkpoint_error.h"
#include "checkpointed_runs.h"
#include "leader_rounds.h"

namespace hetps::testing {
namespace {

config::Config checkpointed_config(const std::string& protocol) {
  config::Config config = small_config(protocol);
  config.engine = "threads";
  // Five times slower than the small job's workers (padded: a sleep), so that a run lasts a
  // few tenths of a second, long enough for several checkpoints, without more work for the cores.
  config.cluster.speeds = {0.2, 0.2, 0.1, 0.05};
  config.train.max_samples = 4 * 16 * 250;
  config.train.eval_interval = 0.05;
  config.run.checkpoint_interval = 0.03;
  return config;
}

TEST(ThreadsCheckpointTest, AStoppedAspRunResumesWithNoUpdateLostOrAppliedTwice) {
  expect_stopped_run_resumes_exactly(checkpointed_config("asp"), 16);
}

TEST(ThreadsCheckpointTest, AStoppedBspRunResumesWithNoUpdateLostOrAppliedTwice) {
  expect_stopped_run_resumes_exactly(checkpointed_config("bsp"), 4 * 16);
}

// Leaders gather their members' updates: a checkpoint waits for every merge, and the resumed
// leaders gather again from the replies held back.
TEST(ThreadsCheckpointTest, AStoppedRunOfLeadersResumesWithNoUpdateLostOrAppliedTwice) {
  const auto leader_rounds = LeaderRounds::registration();
  config::Config config = checkpointed_config("leader_rounds");
  config.protocol.params["split"] = 2.0;
  config.protocol.params["rotate"] = 1.0;
  // Two communities of two, each merged update a version of its own.
  expect_stopped_run_resumes_exactly(config, 2 * 16);
}

// A crash before the stop is in the checkpoint and is not injected again; one due after the
// resume still comes.
// Petrel itself: communities of its own choosing, regrouped by quiesce, so a version holds as
// many samples as the community that made it.
TEST(ThreadsCheckpointTest, AStoppedPetrelRunResumesWithNoUpdateLostOrAppliedTwice) {
  config::Config config = checkpointed_config("petrel");
  config.protocol.params["profile_steps"] = 2.0;
  expect_stopped_run_resumes_exactly(config, std::nullopt);
}

TEST(ThreadsCheckpointTest, FailuresComeOnceAcrossAResume) {
  config::Config config = checkpointed_config("bsp");
  config.train.max_samples = 1'000'000'000;
  config.train.max_time = 0.8;
  config.cluster.failures = {{.worker = 1, .time = 0.0, .kind = "crash"},
                             {.worker = 2, .time = 0.5, .kind = "crash"}};
  const CheckpointedRun stopped = run_checkpointed(config, 2);
  ASSERT_TRUE(stopped.stopped_at);
  ASSERT_LT(*stopped.stopped_at, 0.5) << "the stop comes well before the second crash";
  const CheckpointedRun resumed =
      run_checkpointed(config, kNoStop, &stopped.checkpoints.back(), &stopped);
  ASSERT_TRUE(resumed.summary);
  EXPECT_EQ(resumed.summary->stop_reason, "max_time");
  std::vector<int> failed;
  for (const nlohmann::json& event : resumed.log.events) {
    if (event.at("type") == "worker_failed") failed.push_back(event.at("worker").get<int>());
  }
  EXPECT_EQ(failed, (std::vector<int>{1, 2}));
  // The two workers left go on closing rounds after the second crash.
  ASSERT_FALSE(resumed.log.evals.empty());
  EXPECT_GT(resumed.log.evals.back().time, 0.5);
  const auto after_crash = std::find_if(resumed.log.evals.begin(), resumed.log.evals.end(),
                                        [](const auto& eval) { return eval.time > 0.5; });
  EXPECT_GT(resumed.log.evals.back().updates, after_crash->updates);
}

// A hung worker is not waited for: checkpoints go on without it, and it stays silent after the
// resume, its hang logged once.
TEST(ThreadsCheckpointTest, AHungWorkerDoesNotHoldBackACheckpoint) {
  config::Config config = checkpointed_config("asp");
  config.cluster.failures = {{.worker = 3, .time = 0.0, .kind = "hang"}};
  config.run.stall_warning_s = 100;
  config.run.stall_timeout_s = 100;
  const CheckpointedRun stopped = run_checkpointed(config, 2);
  ASSERT_TRUE(stopped.stopped_at);
  const CheckpointedRun resumed =
      run_checkpointed(config, kNoStop, &stopped.checkpoints.back(), &stopped);
  ASSERT_TRUE(resumed.summary);
  EXPECT_EQ(resumed.summary->samples, config.train.max_samples);
  EXPECT_EQ(
      std::count_if(resumed.log.events.begin(), resumed.log.events.end(),
                    [](const nlohmann::json& event) { return event.at("type") == "worker_hung"; }),
      1);
  for (const Checkpoint& checkpoint : resumed.checkpoints) {
    EXPECT_EQ(samples_drawn(config, checkpoint)[3], 0) << "the hung worker never trained";
    expect_every_drawn_sample_accounted_for(config, checkpoint);
  }
}

TEST(ThreadsCheckpointTest, ACheckpointOfAnotherEngineIsRefusedByName) {
  config::Config config = checkpointed_config("asp");
  config.engine = "sim";
  const CheckpointedRun simulated = run_checkpointed(config, 2);
  ASSERT_TRUE(simulated.stopped_at);
  config.engine = "threads";
  try {
    run_checkpointed(config, kNoStop, &simulated.checkpoints.back(), &simulated);
    FAIL() << "a checkpoint of the simulator must be refused";
  } catch (const checkpoint::CheckpointError& error) {
    EXPECT_STREQ(error.what(), "the threads engine: taken on engine \"sim\", not threads");
  }
}

}  // namespace
}  // namespace hetps::testing
