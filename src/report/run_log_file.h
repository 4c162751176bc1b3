// Reads a run's log.jsonl back: its evaluations and its other records (protocol events).
#pragma once

#include <filesystem>
#include <vector>

#include "report/run_record.h"

namespace hetps::report {

struct RunLogFile {
  std::vector<Evaluation> evaluations;  // in the log's order (by time)
  std::vector<LoggedEvent> events;
};

// Throws ReportInputError naming the file and line of the first record that is not a JSON
// object with a "type" string and a "time" number (and, for "eval" records, the numbers the
// report plots), and when the log holds no evaluation.
RunLogFile read_run_log(const std::filesystem::path& file);

}  // namespace hetps::report
