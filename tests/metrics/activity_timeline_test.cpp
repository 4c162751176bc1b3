#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "metrics/activity_timeline.h"

namespace hetps::metrics {
namespace {

using A = Activity;

// One cycle of a worker: a reply travels from `sent` to `arrived`, the worker computes until
// `computed` and pushes until `pushed`.
void run_cycle(WorkerActivity& activity, double sent, double arrived, double computed,
               double pushed) {
  activity.begin_cycle();
  activity.record(A::kCommunicate, sent, arrived);
  activity.record(A::kCompute, arrived, computed);
  activity.record(A::kCommunicate, computed, pushed);
}

std::vector<int64_t> cycles_of(const WorkerActivity& activity) {
  std::vector<int64_t> cycles;
  for (const ActivityInterval& interval : activity.intervals()) {
    if (cycles.empty() || cycles.back() != interval.cycle) cycles.push_back(interval.cycle);
  }
  return cycles;
}

TEST(ActivityTimelineTest, TheTimeBetweenIntervalsIsWaiting) {
  WorkerActivity activity(100);
  run_cycle(activity, 1, 2, 5, 6);
  run_cycle(activity, 8, 9, 10, 11);
  const std::vector<ActivityInterval> expected = {
      {1, A::kWait, 0, 1},        {1, A::kCommunicate, 1, 2},  {1, A::kCompute, 2, 5},
      {1, A::kCommunicate, 5, 6}, {2, A::kWait, 6, 8},         {2, A::kCommunicate, 8, 9},
      {2, A::kCompute, 9, 10},    {2, A::kCommunicate, 10, 11}};
  EXPECT_EQ(activity.intervals(), expected);
  activity.wait_until(15);
  EXPECT_EQ(activity.intervals().back(), (ActivityInterval{2, A::kWait, 11, 15}));
}

TEST(ActivityTimelineTest, AnIntervalReachingBackIsCutAtThePreviousEnd) {
  WorkerActivity activity(100);
  activity.begin_cycle();
  activity.record(A::kCompute, 0, 4);
  activity.record(A::kCommunicate, 3.5, 5);
  activity.record(A::kCompute, 4.5, 4.8);  // wholly inside the past: nothing
  const std::vector<ActivityInterval> expected = {{1, A::kCompute, 0, 4},
                                                  {1, A::kCommunicate, 4, 5}};
  EXPECT_EQ(activity.intervals(), expected);
}

// A real engine's clock may step back (on mpi it follows rank 0's): an interval that ends before
// it starts still ends the wait before it.
TEST(ActivityTimelineTest, AnIntervalEndingBeforeItStartsEndsTheWaitBeforeIt) {
  WorkerActivity activity(100);
  activity.begin_cycle();
  activity.record(A::kCompute, 0, 2);
  activity.record(A::kCommunicate, 5, 4);
  activity.record(A::kCompute, 6, 7);
  const std::vector<ActivityInterval> expected = {
      {1, A::kCompute, 0, 2}, {1, A::kWait, 2, 6}, {1, A::kCompute, 6, 7}};
  EXPECT_EQ(activity.intervals(), expected);
}

// Four intervals a cycle (a wait, the pull, the steps, the push).
void run_cycles(WorkerActivity& activity, int from, int to) {
  for (int c = from; c < to; ++c) {
    run_cycle(activity, 4.0 * c + 1, 4.0 * c + 2, 4.0 * c + 3, 4.0 * c + 4);
  }
}

TEST(ActivityTimelineTest, AFullBufferKeepsTheFirstCyclesWholeThenSamplesTheRest) {
  // 16 intervals hold four cycles. When the fifth comes, the first two stay for good and
  // every other cycle after them is kept, then every fourth, every eighth.
  WorkerActivity activity(16);
  run_cycles(activity, 0, 5);
  EXPECT_EQ(activity.whole_cycles(), 2);
  EXPECT_EQ(activity.cycle_stride(), 2);
  EXPECT_EQ(cycles_of(activity), (std::vector<int64_t>{1, 2, 3, 5}));
  run_cycles(activity, 5, 7);
  EXPECT_EQ(activity.cycle_stride(), 4);
  EXPECT_EQ(cycles_of(activity), (std::vector<int64_t>{1, 2, 3, 7}));
  run_cycles(activity, 7, 11);
  EXPECT_EQ(activity.cycle_stride(), 8);
  EXPECT_EQ(activity.whole_cycles(), 2);
  EXPECT_EQ(cycles_of(activity), (std::vector<int64_t>{1, 2, 3, 11}));
  // A kept cycle is whole: its wait, pull, steps and push.
  EXPECT_EQ(activity.intervals().size(), 16u);
  EXPECT_EQ(activity.intervals()[12], (ActivityInterval{11, A::kWait, 40, 41}));
}

TEST(ActivityTimelineTest, ABufferTooSmallForOneCycleKeepsWhatFitsAndEnds) {
  WorkerActivity activity(1);
  for (int c = 0; c < 5; ++c)
    run_cycle(activity, 4.0 * c + 1, 4.0 * c + 2, 4.0 * c + 3, 4.0 * c + 4);
  // The first cycle's first interval, its wait for the run to start, and nothing after it.
  EXPECT_EQ(activity.intervals(), (std::vector<ActivityInterval>{{1, A::kWait, 0, 1}}));
  WorkerActivity nothing(0);
  run_cycle(nothing, 1, 2, 3, 4);
  EXPECT_TRUE(nothing.intervals().empty());
}

TEST(ActivityTimelineTest, ComputingDuringAnEpisodeIsStraggling) {
  WorkerActivity activity(100);
  run_cycle(activity, 0, 1, 5, 6);
  run_cycle(activity, 6, 7, 9, 10);
  activity.mark_straggling(3, 8);
  const std::vector<ActivityInterval> expected = {
      {1, A::kCommunicate, 0, 1}, {1, A::kCompute, 1, 3},     {1, A::kStraggle, 3, 5},
      {1, A::kCommunicate, 5, 6}, {2, A::kCommunicate, 6, 7}, {2, A::kStraggle, 7, 8},
      {2, A::kCompute, 8, 9},     {2, A::kCommunicate, 9, 10}};
  EXPECT_EQ(activity.intervals(), expected);
}

TEST(ActivityTimelineTest, AWorkerThatStoppedEndsThereAndRecordsNothingMore) {
  WorkerActivity activity(100);
  run_cycle(activity, 0, 1, 5, 6);
  activity.stop_at(3);
  run_cycle(activity, 6, 7, 9, 10);
  activity.wait_until(20);
  const std::vector<ActivityInterval> expected = {{1, A::kCommunicate, 0, 1},
                                                  {1, A::kCompute, 1, 3}};
  EXPECT_EQ(activity.intervals(), expected);
}

TEST(ActivityTimelineTest, TheCsvListsEveryWorkersIntervalsAndTheLargestStride) {
  ActivityTimeline timeline(2, 16);
  run_cycle(timeline.worker(0), 0, 0.5, 1.25, 2);
  run_cycles(timeline.worker(1), 0, 5);
  EXPECT_EQ(timeline.cycle_stride(), 2);
  EXPECT_EQ(timeline.whole_cycles(), 2);
  std::ostringstream csv;
  write_csv(csv, timeline);
  std::string expected =
      "worker,cycle,activity,start_s,end_s\n"
      "0,1,communicate,0,0.5\n"
      "0,1,compute,0.5,1.25\n"
      "0,1,communicate,1.25,2\n";
  for (int c : {1, 2, 3, 5}) {
    const int t = 4 * (c - 1);
    expected += fmt::format(
        "1,{0},wait,{1},{2}\n1,{0},communicate,{2},{3}\n1,{0},compute,{3},{4}\n"
        "1,{0},communicate,{4},{5}\n",
        c, t, t + 1, t + 2, t + 3, t + 4);
  }
  EXPECT_EQ(csv.str(), expected);
}

TEST(ActivityTimelineTest, AWorkersActivityTravelsAsDoublesWhole) {
  WorkerActivity activity(100);
  run_cycles(activity, 0, 3);
  activity.mark_straggling(2.5, 3);
  WorkerActivity received = WorkerActivity::from_doubles(activity.to_doubles(), 100);
  EXPECT_EQ(received.intervals(), activity.intervals());
  // The run's end reaches it like any worker's.
  received.wait_until(20);
  EXPECT_EQ(received.intervals().back(), (ActivityInterval{3, A::kWait, 12, 20}));
  // A worker that stopped stays stopped.
  activity.stop_at(11.5);
  WorkerActivity stopped = WorkerActivity::from_doubles(activity.to_doubles(), 100);
  stopped.wait_until(20);
  EXPECT_EQ(stopped.intervals().back().end, 11.5);
}

TEST(ActivityTimelineTest, ASampledWorkersActivityTravelsWithItsSampling) {
  WorkerActivity activity(16);
  run_cycles(activity, 0, 6);  // cycle 6 is not sampled: it ended at 24, its last kept at 20
  WorkerActivity received = WorkerActivity::from_doubles(activity.to_doubles(), 16);
  EXPECT_EQ(received.intervals(), activity.intervals());
  EXPECT_EQ(received.cycle_stride(), 2);
  EXPECT_EQ(received.whole_cycles(), 2);
  // It goes on sampling as the sender did: cycle 7 is kept, its wait from cycle 6's end.
  run_cycle(received, 25, 26, 27, 28);
  run_cycle(received, 29, 30, 31, 32);
  EXPECT_EQ(cycles_of(received), (std::vector<int64_t>{1, 2, 3, 7}));
  EXPECT_EQ(received.intervals()[12], (ActivityInterval{7, A::kWait, 24, 25}));
}

TEST(ActivityTimelineTest, MalformedDoublesAreRefused) {
  EXPECT_THROW(WorkerActivity::from_doubles({}, 8), std::invalid_argument);
  EXPECT_THROW(WorkerActivity::from_doubles(std::vector<double>{1, 0, 1, 2, 0}, 8),
               std::invalid_argument);
  EXPECT_THROW(WorkerActivity::from_doubles(std::vector<double>{1, 0, 1, 0, 0, 1, 0, 0}, 8),
               std::invalid_argument);
  // An unknown activity; an interval that ends before it starts; one before the previous.
  EXPECT_THROW(WorkerActivity::from_doubles(std::vector<double>{1, 0, 1, 0, 0, 1, 7, 0, 1}, 8),
               std::invalid_argument);
  EXPECT_THROW(WorkerActivity::from_doubles(std::vector<double>{1, 0, 1, 0, 0, 1, 0, 2, 1}, 8),
               std::invalid_argument);
  EXPECT_THROW(
      WorkerActivity::from_doubles(std::vector<double>{1, 0, 1, 0, 0, 1, 0, 2, 3, 1, 0, 1, 2}, 8),
      std::invalid_argument);
}

// Found by fuzz/mpi_messages.cpp: counts beyond an int64_t (or not numbers at all) were
// accepted and converted to one, which is undefined.
TEST(ActivityTimelineTest, CountsThatAreNotWholeNumbersOfAnInt64AreRefused) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  for (const double count : {3.4e38, kNaN, kInf, 1.5, -1.0}) {
    EXPECT_THROW(WorkerActivity::from_doubles(std::vector<double>{count, 0, 1, 0, 0}, 8),
                 std::invalid_argument);
    EXPECT_THROW(WorkerActivity::from_doubles(std::vector<double>{1, count, 1, 0, 0}, 8),
                 std::invalid_argument);
    EXPECT_THROW(WorkerActivity::from_doubles(std::vector<double>{1, 0, count, 0, 0}, 8),
                 std::invalid_argument);
    // An interval's cycle and activity.
    EXPECT_THROW(
        WorkerActivity::from_doubles(std::vector<double>{1, 0, 1, 0, 0, count, 0, 0, 1}, 8),
        std::invalid_argument);
    EXPECT_THROW(
        WorkerActivity::from_doubles(std::vector<double>{1, 0, 1, 0, 0, 1, count, 0, 1}, 8),
        std::invalid_argument);
  }
  EXPECT_EQ(
      WorkerActivity::from_doubles(std::vector<double>{1, 0, 1, 0, 0, 1, 3, 0, 1}, 8).intervals(),
      (std::vector<ActivityInterval>{{1, A::kWait, 0, 1}}));
}

TEST(ActivityTimelineTest, TimesThatAreNotFiniteAreRefused) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  EXPECT_THROW(WorkerActivity::from_doubles(std::vector<double>{1, 0, 1, 0, kInf}, 8),
               std::invalid_argument);
  EXPECT_THROW(WorkerActivity::from_doubles(std::vector<double>{1, 0, 1, 0, 0, 1, 0, 0, kInf}, 8),
               std::invalid_argument);
}

// A worker keeps at most run.timeline_intervals; more would be a longer message than any sends.
TEST(ActivityTimelineTest, MoreIntervalsThanTheBufferHoldsAreRefused) {
  const std::vector<double> two = {1, 0, 1, 0, 0, 1, 0, 0, 1, 1, 2, 1, 2};
  EXPECT_EQ(WorkerActivity::from_doubles(two, 2).intervals().size(), 2u);
  EXPECT_THAT([&] { WorkerActivity::from_doubles(two, 1); },
              ::testing::ThrowsMessage<std::invalid_argument>(
                  ::testing::HasSubstr("four numbers for each of at most 1 intervals")));
}

}  // namespace
}  // namespace hetps::metrics
