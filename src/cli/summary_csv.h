// `<out>/summary.csv` of `hetps compare`: one row per run with its summary fields, numbers as
// in summary.json.
#pragma once

#include <string>
#include <vector>

#include "cli/compare_table.h"

namespace hetps::cli {

std::string summary_csv_text(const std::vector<CompletedRun>& runs);

}  // namespace hetps::cli
