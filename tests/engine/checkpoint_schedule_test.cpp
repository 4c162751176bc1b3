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
