#include "protocol/straggler_detector.h"

#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

namespace hetps::protocol {
namespace {

// A deterministic ±5% wobble, like the simulator's step noise.
double wobble(int step) { return 1.0 + 0.05 * std::sin(step * 1.7); }

TEST(StragglerDetectorTest, PermanentlySlowWorkersAreNeverFlagged) {
  StragglerDetector detector(2, {});
  double now = 0;
  for (int step = 0; step < 300; ++step) {
    now += 1;
    EXPECT_EQ(detector.observe(0, 1.0 * wobble(step), now), StragglerDetector::Change::None);
    EXPECT_EQ(detector.observe(1, 4.0 * wobble(step + 7), now), StragglerDetector::Change::None);
  }
  EXPECT_EQ(detector.stragglers(), 0);
  EXPECT_NEAR(detector.profiled_seconds(1), 4.0, 0.2);
}

TEST(StragglerDetectorTest, ATransientSlowdownIsFlaggedAndClearedWhenItEnds) {
  StragglerDetector detector(1, {.factor = 1.5, .window = 5});
  double now = 0;
  std::vector<std::pair<int, StragglerDetector::Change>> changes;
  for (int step = 0; step < 150; ++step) {
    const bool slowed = step >= 50 && step < 80;
    const double seconds = (slowed ? 3.0 : 1.0) * wobble(step);
    now += seconds;
    const auto change = detector.observe(0, seconds, now);
    if (change != StragglerDetector::Change::None) changes.emplace_back(step, change);
  }
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].second, StragglerDetector::Change::Flagged);
  EXPECT_GE(changes[0].first, 50);
  EXPECT_LE(changes[0].first, 54) << "flagged within a window of the slowdown";
  EXPECT_EQ(changes[1].second, StragglerDetector::Change::Cleared);
  EXPECT_GE(changes[1].first, 80);
  EXPECT_LE(changes[1].first, 84) << "cleared within a window of the end";
  // The profile left the slow steps out: the worker's normal is still about 1 s.
  EXPECT_NEAR(detector.profiled_seconds(0), 1.0, 0.1);
  // The episode lasted about the 30 slow steps of ~3 s.
  EXPECT_NEAR(detector.mean_episode_seconds(-1), 90, 15);
}

// An episode longer than the worker's normal history: had its steps entered the profile, the
// median would become the slow step and clear the flag mid-episode.
TEST(StragglerDetectorTest, AnEpisodeLongerThanTheHistoryStaysOutOfTheProfile) {
  StragglerDetector detector(1, {.factor = 1.5, .window = 5});
  std::vector<std::pair<int, StragglerDetector::Change>> changes;
  const auto observe = [&](int step, double seconds) {
    const auto change = detector.observe(0, seconds, step);
    if (change != StragglerDetector::Change::None) changes.emplace_back(step, change);
  };
  int step = 0;
  for (; step < 20; ++step) observe(step, 1.0);
  // The first slow step's window mean, (4 + 3) / 5, is under 1.5: it still counts as normal.
  for (; step < 120; ++step) observe(step, 3.0);
  EXPECT_EQ(changes, (std::vector<std::pair<int, StragglerDetector::Change>>{
                         {21, StragglerDetector::Change::Flagged}}));
  EXPECT_EQ(detector.profiled_seconds(0), 1.0);
  EXPECT_EQ(detector.save_state().at("workers").at(0).at("profile").size(), 21u);
  for (; step < 130; ++step) observe(step, 1.0);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[1].second, StragglerDetector::Change::Cleared);
}

// spec: flagged when the recent step time *exceeds* factor × the profiled one. The window
// (1, 1, 1, 1, 3.5) has a mean of exactly 1.5 × the profiled 1 s.
TEST(StragglerDetectorTest, ARecentTimeOfExactlyTheFactorIsNotFlagged) {
  StragglerDetector detector(1, {.factor = 1.5, .window = 5});
  for (int step = 0; step < 5; ++step) detector.observe(0, 1.0, step);
  EXPECT_EQ(detector.observe(0, 3.5, 5), StragglerDetector::Change::None);
  EXPECT_FALSE(detector.is_straggler(0));
}

TEST(StragglerDetectorTest, BeforeAnyEpisodeEndsTheMeanIsTheFallback) {
  StragglerDetector detector(1, {});
  EXPECT_EQ(detector.mean_episode_seconds(12.5), 12.5);
}

TEST(StragglerDetectorTest, StateRoundTrips) {
  StragglerDetector detector(2, {});
  for (int step = 0; step < 20; ++step) detector.observe(step % 2, 1.0 + step * 0.01, step);
  StragglerDetector restored(2, {});
  restored.restore_state(detector.save_state());
  EXPECT_EQ(restored.save_state(), detector.save_state());
}

}  // namespace
}  // namespace hetps::protocol
