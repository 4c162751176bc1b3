// Finds and reads the runs a report compares. Each directory given is either
//   - the output of `hetps compare`: summary.csv lists its runs, <entry>/seed-<s>/ each; or
//   - one run of `hetps train`: config.toml, log.jsonl and summary.json; and timeline.csv,
//     which runs of a hetps before the per-worker timeline lack.
//
//   std::vector<RunRecord> runs = read_runs({"runs/compare", "runs/my-petrel"});
#pragma once

#include <filesystem>
#include <vector>

#include "report/run_record.h"

namespace hetps::report {

// The runs in the order given (a comparison's in its summary.csv order). When two directories
// given hold the same run name and seed, every entry is qualified with the name of the
// directory given it came from ("cmp-a/bsp"). Throws ReportInputError naming the directory or
// file, and the line, that is not what a run writes.
std::vector<RunRecord> read_runs(const std::vector<std::filesystem::path>& directories);

}  // namespace hetps::report
