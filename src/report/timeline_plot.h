// The per-worker timeline of one entry, beside report.html:
//   timeline-<n>.csv  worker,cycle,activity,start_s,end_s   its intervals inside the window, cut
//                     at the window's edges (timeline.csv's columns)
//   timeline-<n>.gp   the gnuplot script drawing timeline-<n>.svg: one lane per worker (worker 0
//                     at the top), each activity a fixed colour, from the bars of
//                     timeline_bars.h held in the script itself
// where n is the entry's number in the table (from 1).
#pragma once

#include <filesystem>
#include <string>

#include "report/plot_scripts.h"
#include "report/timeline_window.h"

namespace hetps::report {

// The plot of entry `index` (from 0): "timeline-<index + 1>"; its data is `<name>.csv`.
std::string timeline_plot_name(size_t index);

// An activity's colour in the timeline, as "#rrggbb".
std::string activity_colour(Activity activity);

// The width of the plot's drawing area in pixels: the columns its bars are drawn on.
int timeline_plot_columns();

// Writes `directory`/timeline-<index + 1>.csv. Throws std::runtime_error naming the file when
// it cannot.
void write_timeline_data(const EntryTimeline& timeline, size_t index,
                         const std::filesystem::path& directory);

// The script of entry `index`'s timeline, which has intervals in its window.
PlotScript timeline_plot(const EntryTimeline& timeline, size_t index);

}  // namespace hetps::report
