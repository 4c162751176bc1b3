// The sub-commands of `hetps`. Each registers its flags on the app and runs from its CLI11
// callback; a failure is thrown (see main_entry for the exit statuses).
#pragma once

#include <filesystem>
#include <vector>

#include <CLI/CLI.hpp>

#include "report/report.h"

namespace hetps::cli {

void add_train_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_data_command(CLI::App& app);
void add_protocols_command(CLI::App& app);
void add_tune_command(CLI::App& app);
void add_report_command(CLI::App& app);

// `hetps report`'s work, which `hetps compare` also does at its end: the report of
// `run_directories` written into `out` whole or not at all (replacing an earlier report
// there, nothing else). Returns the path of its report.html.
std::filesystem::path write_report(const std::vector<std::filesystem::path>& run_directories,
                                   const std::filesystem::path& out,
                                   const report::ReportOptions& options);

}  // namespace hetps::cli
