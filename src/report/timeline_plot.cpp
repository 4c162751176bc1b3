#include "report/timeline_plot.h"

#include <algorithm>
#include <map>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/csv.h"
#include "report/gnuplot_text.h"
#include "report/timeline_bars.h"

namespace hetps::report {
namespace {

// The plot's geometry, fixed so that the drawing area's size in pixels is known: its width is
// the columns of timeline_bars, its height the lanes' (margins set at screen positions, not
// left to gnuplot).
constexpr int kTimelineWidth = 960;
constexpr double kLeftMargin = 0.08;
constexpr double kRightMargin = 0.8;  // the key at the right
constexpr int kTopPixels = 40;        // the title
constexpr int kBottomPixels = 55;     // time axis

// Pixels per worker: roomy for a few workers, still a few for 64 and more.
int lane_pixels(int workers) { return std::clamp(480 / workers, 6, 28); }

// At most about 16 worker numbers on the axis.
int worker_tic_step(int workers) { return (workers + 15) / 16; }

std::string seconds_text(double seconds) { return fmt::format("{}", seconds); }

// Each activity's bars as a data block `$<activity>`: start,end,worker. Activities without
// bars have no block.
std::map<Activity, std::string> bar_blocks(const EntryTimeline& timeline) {
  std::map<Activity, std::string> blocks;
  for (const TimelineBar& bar :
       timeline_bars(timeline.intervals, timeline.start, timeline.end, timeline_plot_columns())) {
    blocks[bar.activity] += fmt::format("{},{},{}\n", bar.start, bar.end, bar.worker);
  }
  return blocks;
}

}  // namespace

std::string timeline_plot_name(size_t index) { return fmt::format("timeline-{}", index + 1); }

std::string activity_colour(Activity activity) {
  switch (activity) {
    case Activity::kCompute:
      return "#2ca02c";
    case Activity::kStraggle:
      return "#d62728";
    case Activity::kCommunicate:
      return "#1f77b4";
    case Activity::kWait:
      return "#c7c7c7";
  }
  return "#000000";
}

int timeline_plot_columns() {
  return static_cast<int>(kTimelineWidth * (kRightMargin - kLeftMargin));
}

void write_timeline_data(const EntryTimeline& timeline, size_t index,
                         const std::filesystem::path& directory) {
  CsvFile csv(directory / (timeline_plot_name(index) + ".csv"),
              {"worker", "cycle", "activity", "start_s", "end_s"});
  for (const TimelineRow& interval : timeline.intervals) {
    csv.row({fmt::format("{}", interval.worker), fmt::format("{}", interval.cycle),
             std::string(activity_name(interval.activity)), seconds_text(interval.start),
             seconds_text(interval.end)});
  }
  csv.close();
}

PlotScript timeline_plot(const EntryTimeline& timeline, size_t index) {
  const RunRecord& run = *timeline.run;
  const int workers = std::max(run.summary.workers, 1);
  const int height = kTopPixels + kBottomPixels + workers * lane_pixels(workers);
  const std::string name = timeline_plot_name(index);
  std::string text = plot_preamble(name, kTimelineWidth, height);
  // A bar is a line as thick as 0.8 of its lane, not a filled box: gnuplot writes a colour's
  // lines as one SVG path, measured at under a third of the bytes of a polygon per box.
  text += fmt::format(
      "# The bars of each activity, start,end,worker: {}.csv drawn at this plot's resolution, "
      "each pixel column of a lane showing the activity that filled most of it\n",
      name);
  std::vector<std::string> clauses;
  for (const auto& [activity, block] : bar_blocks(timeline)) {
    text += fmt::format("${} << EOD\n{}EOD\n", activity_name(activity), block);
    clauses.push_back(fmt::format(
        "${} using 1:3:($2 - $1):(0) with vectors nohead lw {} lc rgb '{}' notitle",
        activity_name(activity), 0.8 * lane_pixels(workers), activity_colour(activity)));
  }
  // A window with no bar (one much longer than the run: no activity fills half a pixel column)
  // still needs something plotted: gnuplot fails an assertion on a plot of key entries alone.
  if (clauses.empty()) clauses.push_back("NaN notitle");
  for (Activity activity : kActivities) {
    clauses.push_back(
        fmt::format("keyentry with boxes fs solid 1.0 noborder lc rgb '{}' title '{}'",
                    activity_colour(activity), activity_name(activity)));
  }
  // The y axis runs downwards, a worker's lane centred on its number: worker 0 at the top.
  text += fmt::format(
      "set title {}\n"
      "set lmargin at screen {}\n"
      "set rmargin at screen {}\n"
      "set tmargin at screen {}\n"
      "set bmargin at screen {}\n"
      "set key outside right top vertical\n"
      "set grid noytics\n"
      "set xlabel {}\n"
      "set ylabel 'worker'\n"
      "set xrange [{}:{}]\n"
      "set yrange [{}:-0.5]\n"
      "set ytics 0,{},{}\n"
      "plot \\\n  {}\n",
      gnuplot_string(fmt::format("{}, seed {}", run.entry, run.summary.seed)), kLeftMargin,
      kRightMargin, 1 - static_cast<double>(kTopPixels) / height,
      static_cast<double>(kBottomPixels) / height, gnuplot_string(time_label({&run})),
      seconds_text(timeline.start), seconds_text(timeline.end), workers - 0.5,
      worker_tic_step(workers), workers - 1, fmt::join(clauses, ", \\\n  "));
  return {name, text};
}

}  // namespace hetps::report
