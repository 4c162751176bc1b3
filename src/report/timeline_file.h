// Reads a run's timeline.csv back: where each worker spent its time, as the engines write it.
//   worker,cycle,activity,start_s,end_s
//   0,1,wait,0,0.0012
//   0,1,communicate,0.0012,0.0031
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include "report/run_record.h"

namespace hetps::report {

inline constexpr const char* kTimelineFile = "timeline.csv";

// The intervals in the file's order; none when the file does not exist (a run of a hetps before
// the timeline). Throws ReportInputError naming the file and line of the first row that is not
// what an engine writes: a header other than the one above, a worker outside [0, `workers`), a
// cycle below 1, an unknown activity, a time that is not a finite number >= 0, an end before
// its start, or rows out of order (by worker, then start; a worker's intervals never overlap
// and its cycles never go back).
std::optional<std::vector<TimelineRow>> read_timeline_file(const std::filesystem::path& file,
                                                           int workers);

}  // namespace hetps::report
