// report.html: one self-contained page (the plots embedded as data: URIs, no script, no
// external file) with the accuracy and loss plots, the results table, the staleness histograms,
// the per-worker timelines, and the list of runs.
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include "report/comparison.h"
#include "report/plot_scripts.h"
#include "report/run_record.h"
#include "report/timeline_window.h"

namespace hetps::report {

// Writes `directory`/report.html (kReportPage), embedding the SVG files `plots` drew there;
// `timelines` are entry_timelines(comparison, ...). Throws std::runtime_error naming a file it
// cannot read or write.
void write_html_report(const Comparison& comparison, const std::vector<RunRecord>& runs,
                       const std::vector<PlotScript>& plots,
                       const std::vector<std::optional<EntryTimeline>>& timelines,
                       const std::filesystem::path& directory);

}  // namespace hetps::report
