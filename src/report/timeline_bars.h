// The bars that draw a timeline at the resolution of its plot. A long run has thousands of
// intervals per worker, most far narrower than a pixel when the window is wide: drawn one by
// one they would make an SVG of many megabytes showing nothing more. So each worker's lane is
// cut into the plot's pixel columns; a column shows the activity that filled most of it (none
// when more than half of it is unrecorded), and a run of columns showing the same activity is
// one bar. An interval a few pixels wide is then drawn within a pixel of its true edges, and a
// lane never has more bars than the plot has columns. (Dropping the intervals narrower than a
// pixel instead would blank out a lane whose every cycle is that narrow.)
#pragma once

#include <vector>

#include "report/run_record.h"

namespace hetps::report {

struct TimelineBar {
  int worker = 0;
  Activity activity = Activity::kWait;
  double start = 0;
  double end = 0;

  bool operator==(const TimelineBar&) const = default;
};

// The bars of `intervals` (by worker, then start) over [start, end) on `columns` columns: by
// worker, then start.
std::vector<TimelineBar> timeline_bars(const std::vector<TimelineRow>& intervals, double start,
                                       double end, int columns);

}  // namespace hetps::report
