// An injected server-shard crash (`cluster.shard_failures`, engine/shard_failures.h) on the
// threads engine: at its time the run ends with ShardCrashed, no checkpoint after it, no
// summary, every worker thread joined; resumed from the last checkpoint with the crash marked
// as past, the run finishes its budget. The simulator refuses the key.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/engine.h"
#include "engine/shard_failures.h"
#include "small_run.h"
#include "support/through_cbor.h"

namespace hetps::testing {
namespace {

constexpr double kCrashTime = 0.1;

// Four workers padded to a run of a few tenths of a second (threads_checkpoint_test.cpp),
// two shards, the second crashing at kCrashTime, a checkpoint every 0.02 s before it. A
// checkpoint waits for the slowest worker's step, ten calibrated steps long: under TSan a step
// can take milliseconds, and at a twentieth of the speed the first checkpoint sometimes came
// after the crash (1-2 runs in 10).
config::Config crashing_config(const std::string& protocol) {
  config::Config config = small_config(protocol);
  config.engine = "threads";
  config.cluster.servers = 2;
  config.cluster.speeds = {0.2, 0.2, 0.1, 0.1};
  config.cluster.shard_failures = {{.shard = 1, .time = kCrashTime}};
  config.train.max_samples = 4 * 16 * 250;
  config.train.eval_interval = 0.05;
  config.run.checkpoint_interval = 0.02;
  return config;
}

struct HandedCheckpoint {
  nlohmann::json state;
  double time = 0;
};

struct CrashingRun {
  std::vector<HandedCheckpoint> checkpoints;  // in the order handed to `save`
  CollectingListener log;
  std::optional<metrics::Summary> summary;  // empty when the crash ended the run
  std::optional<engine::ShardCrashed> crash;
};

CrashingRun run_with_checkpoints(const config::Config& config,
                                 const HandedCheckpoint* resume_from = nullptr,
                                 std::vector<int> crashed_shards = {}) {
  CrashingRun run;
  engine::RunCheckpoints checkpoints;
  checkpoints.resume_from = resume_from != nullptr ? &resume_from->state : nullptr;
  checkpoints.crashed_shards = std::move(crashed_shards);
  checkpoints.save = [&](const nlohmann::json& state, double time) {
    run.checkpoints.push_back({through_cbor(state), time});
  };
  try {
    run.summary = engine::run(config, small_data(), softmax_source(784, 10, config.seed), run.log,
                              checkpoints);
  } catch (const engine::ShardCrashed& crash) {
    run.crash = crash;
  }
  return run;
}

int shard_failures_logged(const CollectingListener& log) {
  return static_cast<int>(std::ranges::count_if(
      log.events, [](const nlohmann::json& event) { return event.at("type") == "shard_failed"; }));
}

size_t threads_listed() {
  size_t threads = 0;
  for ([[maybe_unused]] const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    ++threads;
  }
  return threads;
}

// The threads of this process, worker threads included while they live. A thread is started and
// joined first: a runtime may start a helper thread with the first one (ThreadSanitizer does),
// which is not a worker left running. A joined thread can still be listed for a moment (its
// join returns when the kernel clears its id, before the kernel has finished its exit: 1 run in
// 100 counted one thread too many), so the count is read until it has held for 50 ms; a thread
// left running keeps it up for good.
size_t live_threads() {
  std::thread([] {}).join();
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  size_t threads = threads_listed();
  auto held_since = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - held_since < std::chrono::milliseconds(50) &&
         std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const size_t now_listed = threads_listed();
    if (now_listed != threads) {
      threads = now_listed;
      held_since = std::chrono::steady_clock::now();
    }
  }
  return threads;
}

TEST(ThreadsShardCrashTest, ACrashEndsTheRunAtItsTimeWithNoCheckpointAfterItAndNoSummary) {
  const config::Config config = crashing_config("asp");
  const size_t threads_before = live_threads();
  const CrashingRun crashed = run_with_checkpoints(config);
  ASSERT_TRUE(crashed.crash) << "the run must end at the crash, not at "
                             << (crashed.summary ? crashed.summary->stop_reason : "?");
  EXPECT_EQ(crashed.crash->shard(), 1);
  EXPECT_EQ(crashed.crash->time(), kCrashTime);
  EXPECT_STREQ(crashed.crash->what(),
               "server shard 1 crashed at 0.100 s of run time (cluster.shard_failures)");
  // Every worker thread was joined before the error left the engine.
  EXPECT_EQ(live_threads(), threads_before);

  // The log ends with the crash, at its time; no summary and no timeline were published.
  ASSERT_FALSE(crashed.log.events.empty());
  const nlohmann::json& last = crashed.log.events.back();
  EXPECT_EQ(last.at("type"), "shard_failed");
  EXPECT_EQ(last.at("shard"), 1);
  EXPECT_EQ(last.at("time").get<double>(), kCrashTime);
  EXPECT_EQ(shard_failures_logged(crashed.log), 1);
  EXPECT_TRUE(crashed.log.timeline.empty());
  // The crash is looked at first when the loop wakes: nothing is evaluated at or after it.
  for (const metrics::EvalRecord& eval : crashed.log.evals) EXPECT_LT(eval.time, kCrashTime);

  // Checkpoints came before the crash, and none at or after it.
  ASSERT_FALSE(crashed.checkpoints.empty());
  for (const HandedCheckpoint& checkpoint : crashed.checkpoints) {
    EXPECT_LT(checkpoint.time, kCrashTime);
  }
}

// The resumed run starts from the last checkpoint before the crash: marked as past, the crash is
// not injected again and the budget is spent; not marked, it comes again at its time.
TEST(ThreadsShardCrashTest, AResumedRunSkipsTheCrashThatHappenedAndFinishesItsBudget) {
  const config::Config config = crashing_config("asp");
  const CrashingRun crashed = run_with_checkpoints(config);
  ASSERT_TRUE(crashed.crash);
  ASSERT_FALSE(crashed.checkpoints.empty());
  const HandedCheckpoint& last = crashed.checkpoints.back();

  const CrashingRun resumed = run_with_checkpoints(config, &last, {1});
  ASSERT_TRUE(resumed.summary) << "crashed again: " << resumed.crash->what();
  EXPECT_EQ(resumed.summary->stop_reason, "max_samples");
  // Every ASP version holds one batch: the budget is spent exactly.
  EXPECT_EQ(resumed.summary->samples, config.train.max_samples);
  EXPECT_GT(resumed.summary->total_time, kCrashTime);
  EXPECT_EQ(shard_failures_logged(resumed.log), 0);
  for (const HandedCheckpoint& checkpoint : resumed.checkpoints) {
    EXPECT_GE(checkpoint.time, last.time);
  }

  const CrashingRun crashed_again = run_with_checkpoints(config, &last);
  ASSERT_TRUE(crashed_again.crash);
  EXPECT_EQ(crashed_again.crash->shard(), 1);
  for (const HandedCheckpoint& checkpoint : crashed_again.checkpoints) {
    EXPECT_LT(checkpoint.time, kCrashTime);
  }
}

// Without checkpoints the crash ends the run just the same; BSP's workers wait at the barrier
// when it comes, and are stopped there.
TEST(ThreadsShardCrashTest, ACrashEndsARunWithoutCheckpoints) {
  config::Config config = crashing_config("bsp");
  config.run.checkpoint_interval = 0;
  config.cluster.shard_failures = {{.shard = 0, .time = 0.05}};
  const size_t threads_before = live_threads();
  const CrashingRun crashed = run_with_checkpoints(config);
  ASSERT_TRUE(crashed.crash);
  EXPECT_EQ(crashed.crash->shard(), 0);
  EXPECT_TRUE(crashed.checkpoints.empty());
  EXPECT_EQ(live_threads(), threads_before);
}

TEST(ThreadsShardCrashTest, TheSimulatorRefusesShardCrashes) {
  config::Config config = small_config("bsp");
  config.cluster.servers = 2;
  config.cluster.shard_failures = {{.shard = 1, .time = 1.0}};
  try {
    run_small(config);
    FAIL() << "the simulator ran a shard crash";
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()),
              "cluster.shard_failures: server-shard crashes are injected on the real engines "
              "only (threads, mpi): the simulator's server is not a process that can die");
  }
}

}  // namespace
}  // namespace hetps::testing
