// The window of the per-worker timeline: as the user writes it, by default from the data, and
// the intervals cut at its edges.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

#include "report/comparison.h"
#include "report/timeline_window.h"
#include "timeline_runs.h"

namespace hetps::report {
namespace {

using ::testing::HasSubstr;
using testing::run_with_cycles;

std::string window_refusal(const std::string& text) {
  try {
    parse_timeline_window(text);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  ADD_FAILURE() << "accepted " << text;
  return "";
}

TEST(TimelineWindowTest, ParsesStartAndEndOrStartAlone) {
  const TimelineWindow both = parse_timeline_window("0:30");
  EXPECT_EQ(both.start, 0);
  EXPECT_EQ(both.end, 30);
  const TimelineWindow open = parse_timeline_window("10:");
  EXPECT_EQ(open.start, 10);
  EXPECT_FALSE(open.end.has_value());
  const TimelineWindow fine = parse_timeline_window("0.5:1.5e1");
  EXPECT_EQ(fine.start, 0.5);
  EXPECT_EQ(fine.end, 15);
}

TEST(TimelineWindowTest, RefusesWhatIsNoWindowSayingWhatIsAllowed) {
  const std::string form =
      "expected START:END in seconds with 0 <= START < END (END left out: to the run's end), "
      "e.g. 0:30 or 10:; got ";
  EXPECT_EQ(window_refusal("5"), form + "\"5\", which has no colon");
  EXPECT_EQ(window_refusal(""), form + "\"\", which has no colon");
  EXPECT_EQ(window_refusal(":5"), form + "\":5\", where START is not a number");
  EXPECT_EQ(window_refusal("soon:5"), form + "\"soon:5\", where START is not a number");
  EXPECT_EQ(window_refusal("1:later"), form + "\"1:later\", where END is not a number");
  EXPECT_EQ(window_refusal("1:2:3"), form + "\"1:2:3\", where END is not a number");
  EXPECT_EQ(window_refusal("nan:1"), form + "\"nan:1\", where START is not a number");
  EXPECT_EQ(window_refusal("0:inf"), form + "\"0:inf\", where END is not a number");
  EXPECT_EQ(window_refusal("-1:2"), form + "START -1 below 0");
  EXPECT_EQ(window_refusal("5:2"), form + "END 2 not after START 5");
  EXPECT_EQ(window_refusal("3:3"), form + "END 3 not after START 3");
}

// Worker 1 keeps every 2nd cycle of 1/16 s: its mean cycle counts the ones it skipped.
TEST(TimelineWindowTest, TheDefaultShowsTwentyCyclesOfTheSlowestWorker) {
  const RunRecord run = run_with_cycles({1.0 / 64, 1.0 / 16}, 40, 3.0, 2);
  const EntryTimeline timeline = entry_timeline(run, std::nullopt);
  EXPECT_EQ(timeline.run, &run);
  EXPECT_FALSE(timeline.chosen);
  EXPECT_EQ(timeline.start, 0);
  EXPECT_EQ(timeline.end, kDefaultWindowCycles / 16.0);
  EXPECT_EQ(timeline.end, 1.25);
}

TEST(TimelineWindowTest, TheDefaultEndsAtTheRunsEnd) {
  const RunRecord run = run_with_cycles({1.0 / 16}, 12, 0.75);
  EXPECT_EQ(entry_timeline(run, std::nullopt).end, 0.75);
}

TEST(TimelineWindowTest, AWorkerWithOneCycleCountsItsSpan) {
  const RunRecord run = run_with_cycles({1.0 / 64, 1.0 / 8}, 1, 10.0);
  EXPECT_EQ(entry_timeline(run, std::nullopt).end, kDefaultWindowCycles / 8.0);
}

// One worker's cycle of 1 s: wait [0, 1/8), communicate [1/8, 2/8), compute [2/8, 7/8),
// communicate [7/8, 1); then the same from 1 s.
TEST(TimelineWindowTest, IntervalsCrossingTheEdgesAreCutThere) {
  const RunRecord run = run_with_cycles({1.0}, 2, 2.0);
  const EntryTimeline timeline = entry_timeline(run, TimelineWindow{0.5, 1.125});
  EXPECT_TRUE(timeline.chosen);
  EXPECT_EQ(timeline.start, 0.5);
  EXPECT_EQ(timeline.end, 1.125);
  const std::vector<TimelineRow> expected = {
      {0, 1, Activity::kCompute, 0.5, 0.875},
      {0, 1, Activity::kCommunicate, 0.875, 1.0},
      {0, 2, Activity::kWait, 1.0, 1.125},
  };  // cycle 2's communicate begins at the window's end: nothing of it is inside
  EXPECT_EQ(timeline.intervals, expected);
}

TEST(TimelineWindowTest, AWindowWithoutEndRunsToTheRunsEnd) {
  const RunRecord run = run_with_cycles({1.0}, 2, 2.0);
  const EntryTimeline timeline = entry_timeline(run, TimelineWindow{1.75, std::nullopt});
  EXPECT_EQ(timeline.end, 2.0);
  const std::vector<TimelineRow> expected = {{0, 2, Activity::kCompute, 1.75, 1.875},
                                             {0, 2, Activity::kCommunicate, 1.875, 2.0}};
  EXPECT_EQ(timeline.intervals, expected);
  const EntryTimeline after = entry_timeline(run, TimelineWindow{5, std::nullopt});
  EXPECT_EQ(after.end, 5);
  EXPECT_TRUE(after.intervals.empty());
}

TEST(TimelineWindowTest, AnEntryShowsItsFirstSeedThatRecordedOne) {
  std::vector<RunRecord> runs = {run_with_cycles({1.0}, 2, 2.0), run_with_cycles({1.0}, 2, 2.0),
                                 run_with_cycles({1.0}, 2, 2.0)};
  runs[0].timeline.reset();
  runs[1].summary.seed = 8;
  runs[2].entry = "older";
  runs[2].timeline.reset();
  const Comparison comparison = compare_runs(runs);
  const std::vector<std::optional<EntryTimeline>> timelines =
      entry_timelines(comparison, std::nullopt);
  ASSERT_EQ(timelines.size(), 2u);
  ASSERT_TRUE(timelines[0].has_value());
  EXPECT_EQ(timelines[0]->run, &runs[1]);
  EXPECT_FALSE(timelines[1].has_value());
}

}  // namespace
}  // namespace hetps::report
