#include "engine/checkpoint_schedule.h"

#include <gtest/gtest.h>

#include <atomic>
#include <limits>

namespace hetps::engine {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

RunCheckpoints saving(const std::atomic<bool>* stop) {
  RunCheckpoints checkpoints;
  checkpoints.save = [](const nlohmann::json&, double) {};
  checkpoints.stop = stop;
  return checkpoints;
}

TEST(CheckpointScheduleTest, ADueCheckpointStandsForEveryIntervalItPassed) {
  const RunCheckpoints checkpoints = saving(nullptr);
  CheckpointSchedule schedule(checkpoints, 0.5);
  EXPECT_FALSE(schedule.due(0.49));
  EXPECT_TRUE(schedule.due(0.5));
  EXPECT_EQ(schedule.next_look(0.2), 0.5);
  schedule.taken(1.7);  // late: it stands for 0.5, 1.0 and 1.5
  EXPECT_EQ(schedule.next(), 2.0);
  EXPECT_FALSE(schedule.due(1.9));
  EXPECT_TRUE(schedule.due(2.0));
}

// Found by a run with `run.checkpoint_interval = 1e-17` that never ended: 0.5 + 1e-17 is 0.5.
TEST(CheckpointScheduleTest, TheNextBoundaryIsLaterEvenForAnIntervalBelowTheTimesPrecision) {
  EXPECT_EQ(next_multiple_after(1.7, 0.5), 2.0);
  EXPECT_EQ(next_multiple_after(2.0, 0.5), 2.5);
  EXPECT_EQ(next_multiple_after(0.0, 0.25), 0.25);
  for (const double interval : {1e-17, 1e-300}) {
    for (const double time : {0.5, 1e6}) {
      const double next = next_multiple_after(time, interval);
      EXPECT_GT(next, time) << interval << " " << time;
      EXPECT_LE(next, time + time * 1e-15) << interval << " " << time;
    }
  }
}

TEST(CheckpointScheduleTest, TheStopFlagMakesOneDueAtOnceAndIsLookedAtOften) {
  std::atomic<bool> stop{false};
  const RunCheckpoints checkpoints = saving(&stop);
  CheckpointSchedule schedule(checkpoints, 0);  // no interval: only the stop takes one
  EXPECT_FALSE(schedule.due(100));
  EXPECT_EQ(schedule.next_look(3.0), 3.0 + CheckpointSchedule::kStopPollSeconds);
  stop = true;
  EXPECT_TRUE(schedule.stop_asked());
  EXPECT_TRUE(schedule.due(0));
}

TEST(CheckpointScheduleTest, NothingIsDueWhereNothingIsSaved) {
  std::atomic<bool> stop{true};
  RunCheckpoints checkpoints;
  checkpoints.stop = &stop;
  const CheckpointSchedule schedule(checkpoints, 0.5);
  EXPECT_FALSE(schedule.enabled());
  EXPECT_FALSE(schedule.due(10));
  EXPECT_EQ(schedule.next_look(0), kNever);
}

}  // namespace
}  // namespace hetps::engine
