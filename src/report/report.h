// The comparison report of finished runs: `hetps report` and the end of `hetps compare`.
//
//   const std::vector<RunRecord> runs = report::read_runs({"runs/compare"});  // bad input first
//   // out: an empty directory (the command line stages it and moves it into place)
//   std::filesystem::path page = report::build_report(runs, out);
//   // the per-worker timelines over 10 s to 20 s instead of their default windows:
//   report::build_report(runs, out, {.timeline_window = report::parse_timeline_window("10:20")});
//
// `out` then holds report.html (self-contained: open it from disk), the plots' SVG files and
// the gnuplot scripts that drew them, and the CSV data behind every plot (plot_data.h).
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include "report/run_reader.h"
#include "report/timeline_window.h"

namespace hetps::report {

// The report's page, which every finished report directory holds.
inline constexpr const char* kReportPage = "report.html";

struct ReportOptions {
  // The stretch of each entry's run that its per-worker timeline shows; none: the default
  // (timeline_window.h).
  std::optional<TimelineWindow> timeline_window;
};

// Writes the report of `runs` (at least one) into `out` and returns the path of its
// report.html. Throws GnuplotError when gnuplot is missing or fails, std::runtime_error when a
// file cannot be written.
std::filesystem::path build_report(const std::vector<RunRecord>& runs,
                                   const std::filesystem::path& out,
                                   const ReportOptions& options = {});

}  // namespace hetps::report
