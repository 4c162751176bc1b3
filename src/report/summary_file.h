// Reads a run's summary.json back (the inverse of metrics::to_json(Summary)).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

#include "metrics/records.h"

namespace hetps::report {

struct SummaryFile {
  metrics::Summary summary;
  bool staleness_recorded = false;  // whether it has a staleness_histogram
  // Every how many cycles the engine kept of a worker's timeline, when the summary says it
  // (summaries from before the timeline do not).
  std::optional<int64_t> timeline_cycle_stride;
  // How many of each worker's first cycles were kept whole before sampling began (0 when the
  // summary does not say it).
  int64_t timeline_whole_cycles = 0;
};

// Throws ReportInputError naming the file and the field when the file is missing, is not
// JSON, or a field is missing or of the wrong kind (timeline_cycle_stride, when there: a whole
// number >= 1; timeline_whole_cycles, when there: a whole number >= 0).
SummaryFile read_summary_file(const std::filesystem::path& file);

}  // namespace hetps::report
