// Faults injected with `cluster.failures` on the simulator: a crash is announced to the
// protocol, which goes on without the worker; a hang is not, and a protocol that waits for
// the worker stalls.
#include <gtest/gtest.h>

#include "engine/engine.h"
#include "small_run.h"

namespace hetps::engine {
namespace {

using testing::Outcome;
using testing::run_small;
using testing::small_config;

constexpr int64_t kBatch = 16;
constexpr int64_t kModelBytes = (784 * 10 + 10) * sizeof(float);

config::Config failing(const std::string& protocol, std::vector<config::WorkerFailure> failures) {
  config::Config config = small_config(protocol);
  config.train.max_samples = 4 * kBatch * 20;
  config.cluster.failures = std::move(failures);
  return config;
}

// Rounds close with every live worker's update: four of one batch each until the crash, three
// after. So the samples applied are kBatch × (4 × rounds) before the crash and kBatch ×
// (3 × rounds + rounds_before_crash) after it, which fixes rounds_before_crash.
void expect_rounds_of_four_then_three(const Outcome& outcome, double crash_time) {
  const metrics::Summary& summary = outcome.summary;
  const int64_t rounds_before_crash = summary.samples / kBatch - 3 * summary.updates;
  EXPECT_GT(rounds_before_crash, 0) << "the crash came after the first round";
  EXPECT_LT(rounds_before_crash, summary.updates) << "rounds closed after the crash";
  for (const metrics::EvalRecord& eval : outcome.log.evals) {
    if (eval.time < crash_time) {
      EXPECT_EQ(eval.samples, kBatch * 4 * eval.updates) << "at " << eval.time;
    } else {
      EXPECT_EQ(eval.samples, kBatch * (3 * eval.updates + rounds_before_crash))
          << "at " << eval.time;
    }
  }
  // Every round's pulls are answered for the live workers only: the first four, then four
  // after each round before the crash and three after each one since.
  EXPECT_EQ(summary.bytes_from_server,
            kModelBytes * (4 + 3 * summary.updates + rounds_before_crash));
}

// The fastest worker waits at the barrier most of the time; the slowest one computes.
TEST(SimFailures, BspClosesLaterRoundsWithoutTheCrashedWorker) {
  for (int crashed : {0, 3}) {
    const double crash_time = 1.0;
    const Outcome outcome = run_small(failing("bsp", {{crashed, crash_time, "crash"}}));
    const metrics::Summary& summary = outcome.summary;
    EXPECT_EQ(summary.stop_reason, "max_samples") << crashed;
    EXPECT_GE(summary.samples, 4 * kBatch * 20) << crashed;
    EXPECT_LT(summary.samples - 3 * kBatch, 4 * kBatch * 20) << "stops at the first full round";
    expect_rounds_of_four_then_three(outcome, crash_time);
    const nlohmann::json record = {
        {"type", "worker_failed"}, {"time", crash_time}, {"worker", crashed}, {"kind", "crash"}};
    EXPECT_EQ(events_of_type(outcome, "worker_failed"), std::vector{record}) << crashed;
  }
}

// At time 0 every worker's first update is still being computed: the crashed one's is lost.
TEST(SimFailures, BspCrashAtTheStartLosesTheFirstUpdate) {
  const Outcome outcome = run_small(failing("bsp", {{2, 0.0, "crash"}}));
  EXPECT_EQ(outcome.summary.stop_reason, "max_samples");
  EXPECT_EQ(outcome.summary.samples, kBatch * 3 * outcome.summary.updates);
  EXPECT_EQ(outcome.summary.bytes_from_server, kModelBytes * (4 + 3 * outcome.summary.updates));
}

TEST(SimFailures, AspGoesOnWithoutTheCrashedWorker) {
  const Outcome outcome = run_small(failing("asp", {{3, 0.5, "crash"}}));
  EXPECT_EQ(outcome.summary.stop_reason, "max_samples");
  // One update of one batch per version: the budget is spent exactly.
  EXPECT_EQ(outcome.summary.samples, 4 * kBatch * 20);
  EXPECT_EQ(events_of_type(outcome, "worker_failed").size(), 1u);
  // It stopped where it was: nothing of it after its failure.
  ASSERT_FALSE(outcome.log.timeline.at(3).empty());
  for (const metrics::ActivityInterval& interval : outcome.log.timeline.at(3)) {
    EXPECT_LE(interval.end, 0.5);
  }
}

// Nobody tells the protocol: no round closes without the hung worker, and the stall inspector
// ends the run, in virtual time, once its update is run.stall_timeout_s late.
TEST(SimFailures, BspStallsOnAHungWorkerUntilTheInspectorStopsIt) {
  config::Config config = failing("bsp", {{1, 1.0, "hang"}});
  config.run.stall_warning_s = 2;
  config.run.stall_timeout_s = 5;
  const Outcome outcome = run_small(config);
  ASSERT_TRUE(outcome.stall.has_value());
  EXPECT_NE(outcome.stall->find("worker 1 (waiting for its update since"), std::string::npos)
      << *outcome.stall;
  const nlohmann::json record = {
      {"type", "worker_hung"}, {"time", 1.0}, {"worker", 1}, {"kind", "hang"}};
  EXPECT_EQ(events_of_type(outcome, "worker_hung"), std::vector{record});
  EXPECT_TRUE(events_of_type(outcome, "worker_failed").empty());
  const auto warnings = events_of_type(outcome, "stall_warning");
  const auto stalled = events_of_type(outcome, "stalled");
  ASSERT_EQ(warnings.size(), 1u);
  ASSERT_EQ(stalled.size(), 1u);
  // The wait began when the server sent the hung worker its last pull reply.
  const double since = stalled[0].at("time").get<double>() - 5;
  EXPECT_GT(since, 0.0);
  EXPECT_DOUBLE_EQ(warnings[0].at("time").get<double>(), since + 2);
  const auto& last_eval = outcome.log.evals.back();
  EXPECT_EQ(last_eval.samples, kBatch * 4 * last_eval.updates);
}

// Servers that take longer than the timeout to apply one update hold every reply that long: a
// stall, ended at once, where the simulator would evaluate the unchanged model until then.
TEST(SimFailures, ServersBusyPastTheStallTimeoutStallTheRun) {
  config::Config config = failing("asp", {});
  config.cluster.apply_gbps = 1e-300;
  config.run.stall_timeout_s = 5;
  const Outcome outcome = run_small(config);
  ASSERT_TRUE(outcome.stall.has_value());
  EXPECT_NE(outcome.stall->find("server shards are busy"), std::string::npos) << *outcome.stall;
  EXPECT_NE(outcome.stall->find("cluster.apply_gbps = 1e-300 for 1 update(s)"), std::string::npos)
      << *outcome.stall;
  const auto stalled = events_of_type(outcome, "stalled");
  ASSERT_EQ(stalled.size(), 1u);
  // At the first apply, plus the timeout: nothing was evaluated in between.
  EXPECT_LT(stalled[0].at("time").get<double>(), 5 + 1);
  for (const auto& eval : outcome.log.evals) EXPECT_EQ(eval.updates, 0);
}

TEST(SimFailures, AspDoesNotWaitForAHungWorker) {
  const Outcome outcome = run_small(failing("asp", {{0, 0.5, "hang"}}));
  EXPECT_EQ(outcome.summary.stop_reason, "max_samples");
  EXPECT_EQ(outcome.summary.samples, 4 * kBatch * 20);
}

// A failure due after the last update neither runs nor keeps the run going.
TEST(SimFailures, AFailureAfterTheEndChangesNothing) {
  const Outcome plain = run_small(failing("bsp", {}));
  const Outcome late = run_small(failing("bsp", {{2, 1000.0, "crash"}}));
  EXPECT_EQ(late.log.lines, plain.log.lines);
  EXPECT_EQ(late.summary.total_time, plain.summary.total_time);
}

TEST(SimFailures, RunsWithFailuresAreDeterministic) {
  for (const char* protocol : {"bsp", "asp", "ssp"}) {
    const config::Config config =
        failing(protocol, {{1, 0.2, "crash"}, {0, 0.4, "crash"}, {3, 0.6, "hang"}});
    const Outcome first = run_small(config);
    const Outcome second = run_small(config);
    EXPECT_EQ(first.log.lines, second.log.lines) << protocol;
    EXPECT_EQ(first.stall, second.stall) << protocol;
    EXPECT_EQ(events_of_type(first, "worker_failed").size(), 2u) << protocol;
    EXPECT_EQ(events_of_type(first, "worker_hung").size(), 1u) << protocol;
  }
}

}  // namespace
}  // namespace hetps::engine
