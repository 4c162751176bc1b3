// Which stretch of a run the report's per-worker timeline shows: the window a user chose
// (`--timeline-window START:END`), or by default one that shows about kDefaultWindowCycles
// cycles of the entry's slowest worker; and the run's intervals clipped to it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/comparison.h"
#include "report/run_record.h"

namespace hetps::report {

// Seconds of the engines' clock (log.jsonl's `time`).
struct TimelineWindow {
  double start = 0;
  std::optional<double> end;  // none: to the run's end
};

// "0:30", "10:" (from 10 s to the run's end), "0.5:1.5". Throws std::invalid_argument saying
// what is allowed when `text` is not START:END or START: with finite numbers 0 <= START < END.
TimelineWindow parse_timeline_window(std::string_view text);
// The window as parse_timeline_window reads it back: "0:30", "10:".
std::string timeline_window_text(const TimelineWindow& window);

// Enough cycles to see a barrier's rhythm and a straggler among the others, few enough that a
// cycle's compute, communicate and wait stay visible side by side.
inline constexpr int kDefaultWindowCycles = 20;

// What the report shows of one entry's timeline.
struct EntryTimeline {
  const RunRecord* run = nullptr;  // the entry's first seed that recorded a timeline
  double start = 0;                // the window shown
  double end = 0;
  bool chosen = false;  // by the user; else the default
  // The run's intervals inside the window, cut at its edges, in the file's order; those that
  // would be empty once cut are left out.
  std::vector<TimelineRow> intervals;
};

// The timeline of `run` (which recorded one) over `chosen`, or over the default window: from 0
// to kDefaultWindowCycles times the slowest worker's mean cycle (cycles it did not keep
// included), at most to the run's end (its summary's total_time).
EntryTimeline entry_timeline(const RunRecord& run, const std::optional<TimelineWindow>& chosen);

// Per entry of `comparison`, in its order: its timeline, none when no run of the entry recorded
// one. `comparison`'s runs must outlive the result.
std::vector<std::optional<EntryTimeline>> entry_timelines(
    const Comparison& comparison, const std::optional<TimelineWindow>& chosen);

}  // namespace hetps::report
