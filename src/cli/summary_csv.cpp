#include "cli/summary_csv.h"

#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/csv.h"

namespace hetps::cli {
namespace {

// The keys of metrics::to_json(Summary), plus the run's directory, in reading order.
constexpr const char* kColumns[] = {"run_name",
                                    "protocol",
                                    "seed",
                                    "directory",
                                    "final_accuracy",
                                    "best_accuracy",
                                    "target_accuracy",
                                    "time_to_target",
                                    "total_time",
                                    "samples",
                                    "updates",
                                    "bytes_to_server",
                                    "bytes_from_server",
                                    "bytes_worker_to_worker",
                                    "mean_staleness",
                                    "max_staleness",
                                    "wall_seconds",
                                    "stop_reason",
                                    "engine",
                                    "workers"};

// A summary field as a CSV cell (report/csv.h quotes text); null (a target never reached) empty.
std::string summary_cell(const nlohmann::json& value) {
  if (value.is_null()) return "";
  if (!value.is_string()) return value.dump();
  return report::csv_cell(value.get<std::string>());
}

}  // namespace

std::string summary_csv_text(const std::vector<CompletedRun>& runs) {
  std::string text = fmt::format("{}\n", fmt::join(kColumns, ","));
  for (const CompletedRun& run : runs) {
    nlohmann::json row = metrics::to_json(run.summary);
    row["directory"] = run.directory;
    std::vector<std::string> cells;
    for (const char* column : kColumns) cells.push_back(summary_cell(row.at(column)));
    text += fmt::format("{}\n", fmt::join(cells, ","));
  }
  return text;
}

}  // namespace hetps::cli
