// Reads a run's summary.json back (the inverse of metrics::to_json(Summary)).
#pragma once

#include <filesystem>

#include "metrics/records.h"

namespace hetps::report {

struct SummaryFile {
  metrics::Summary summary;
  bool staleness_recorded = false;  // whether it has a staleness_histogram
};

// Throws ReportInputError naming the file and the field when the file is missing, is not
// JSON, or a field is missing or of the wrong kind.
SummaryFile read_summary_file(const std::filesystem::path& file);

}  // namespace hetps::report
