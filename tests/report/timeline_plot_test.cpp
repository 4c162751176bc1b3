// The timeline's plot: its bars at the plot's resolution, its CSV the intervals in the window,
// and an SVG of reasonable size however many intervals a run recorded.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "config/atomic_file.h"
#include "report/gnuplot.h"
#include "report/timeline_bars.h"
#include "report/timeline_file.h"
#include "report/timeline_plot.h"
#include "report_files.h"
#include "timeline_runs.h"

namespace hetps::report {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::read_text;
using testing::run_with_cycles;
using testing::ScratchDirectory;

constexpr Activity kCompute = Activity::kCompute;
constexpr Activity kWait = Activity::kWait;

TEST(TimelineBarsTest, AnIntervalOnColumnEdgesIsOneBarWithItsEdges) {
  const std::vector<TimelineRow> intervals = {{0, 1, kCompute, 0.25, 0.75}};
  const std::vector<TimelineBar> expected = {{0, kCompute, 0.25, 0.75}};
  EXPECT_EQ(timeline_bars(intervals, 0, 1, 4), expected);
}

TEST(TimelineBarsTest, AdjacentIntervalsOfOneActivityAreOneBar) {
  const std::vector<TimelineRow> intervals = {{0, 1, kCompute, 0, 0.5}, {0, 2, kCompute, 0.5, 1}};
  const std::vector<TimelineBar> expected = {{0, kCompute, 0, 1}};
  EXPECT_EQ(timeline_bars(intervals, 0, 1, 8), expected);
}

// Cycles far narrower than a column: each column shows what filled most of it (compute, 5/8).
TEST(TimelineBarsTest, ColumnsShowTheActivityThatFilledMostOfThem) {
  const RunRecord run = run_with_cycles({1.0 / 64, 1.0 / 128}, 64, 1.0);
  const std::vector<TimelineBar> expected = {{0, kCompute, 0, 1}, {1, kCompute, 0, 0.5}};
  EXPECT_EQ(timeline_bars(run.timeline->intervals, 0, 1, 4), expected);
}

TEST(TimelineBarsTest, AColumnMostlyUnrecordedShowsNothing) {
  const std::vector<TimelineBar> none;
  EXPECT_EQ(timeline_bars({{0, 1, kWait, 0, 0.375}}, 0, 1, 1), none);
  const std::vector<TimelineBar> wait = {{0, kWait, 0, 1}};
  EXPECT_EQ(timeline_bars({{0, 1, kWait, 0, 0.625}}, 0, 1, 1), wait);
}

TEST(TimelineBarsTest, OnlyTheWindowIsDrawn) {
  const std::vector<TimelineRow> intervals = {{0, 1, kCompute, 0, 4}, {0, 2, kWait, 4, 8}};
  const std::vector<TimelineBar> expected = {{0, kCompute, 2, 4}, {0, kWait, 4, 6}};
  EXPECT_EQ(timeline_bars(intervals, 2, 6, 4), expected);
}

TEST(TimelinePlotTest, TheCsvHoldsTheIntervalsInTheWindow) {
  const ScratchDirectory scratch;
  const RunRecord run = run_with_cycles({0.1, 0.3}, 10, 3.0);
  const EntryTimeline timeline = entry_timeline(run, TimelineWindow{0.35, 1.05});
  ASSERT_FALSE(timeline.intervals.empty());
  write_timeline_data(timeline, 1, scratch.path());
  // The CSV has timeline.csv's columns: the report's own reader takes it back.
  const auto written = read_timeline_file(scratch / "timeline-2.csv", 2);
  ASSERT_TRUE(written.has_value());
  EXPECT_EQ(*written, timeline.intervals);
  for (const TimelineRow& interval : *written) {
    EXPECT_GE(interval.start, 0.35);
    EXPECT_LE(interval.end, 1.05);
  }
}

TEST(TimelinePlotTest, TheScriptDrawsTheWindowWithALegendOfFourColours) {
  const RunRecord run = run_with_cycles({0.25}, 8, 2.0);
  const PlotScript plot = timeline_plot(entry_timeline(run, TimelineWindow{0.5, 1.5}), 2);
  EXPECT_EQ(plot.name, "timeline-3");
  EXPECT_THAT(plot.text, HasSubstr("set xrange [0.5:1.5]\n"));
  EXPECT_THAT(plot.text, HasSubstr("set title 'made-up, seed 7'\n"));
  EXPECT_THAT(plot.text, HasSubstr("set xlabel 'virtual time (s)'\n"));
  for (Activity activity : kActivities) {
    EXPECT_THAT(plot.text,
                HasSubstr(fmt::format("lc rgb '{}' title '{}'", activity_colour(activity),
                                      activity_name(activity))));
  }
}

// 64 workers of 4096 intervals each (1024 cycles), by default and over the whole run, which
// packs hundreds of intervals into each pixel column.
TEST(TimelinePlotTest, SixtyFourWorkersOfThousandsOfIntervalsDrawSmall) {
  if (!find_gnuplot()) GTEST_SKIP() << "gnuplot is not installed (scripts/install-deps.sh)";
  const ScratchDirectory scratch;
  std::vector<double> cycles;
  for (int w = 0; w < 64; ++w) cycles.push_back((1 + w % 4) / 64.0);
  const RunRecord run = run_with_cycles(cycles, 1024, 64.0);
  ASSERT_EQ(run.timeline->intervals.size(), 64u * 4096u);
  const std::optional<TimelineWindow> windows[] = {std::nullopt, TimelineWindow{0, 64.0}};
  for (size_t i = 0; i < std::size(windows); ++i) {
    const EntryTimeline timeline = entry_timeline(run, windows[i]);
    const PlotScript plot = timeline_plot(timeline, i);
    config::write_file_atomically(scratch / plot.script(), plot.text, "plot script");
    run_gnuplot(scratch.path(), plot.script());
    const std::string svg = read_text(scratch / plot.svg());
    EXPECT_THAT(svg, HasSubstr("</svg>"));
    // Within the drawing's bound (a bar per column per lane at most), in practice far below.
    const auto bars =
        timeline_bars(timeline.intervals, timeline.start, timeline.end, timeline_plot_columns());
    EXPECT_LE(bars.size(), 64u * static_cast<size_t>(timeline_plot_columns()));
    EXPECT_LT(svg.size(), 1'000'000u) << plot.name << ": " << bars.size() << " bars";
  }
}

}  // namespace
}  // namespace hetps::report
