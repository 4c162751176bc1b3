// `<out>/summary.csv` of `hetps compare`: one row per run with its summary fields, numbers as
// in summary.json.
#pragma once

#include <filesystem>
#include <vector>

#include "cli/compare_table.h"

namespace hetps::cli {

void write_summary_csv(const std::filesystem::path& file, const std::vector<CompletedRun>& runs);

}  // namespace hetps::cli
