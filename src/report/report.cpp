#include "report/report.h"

#include <stdexcept>

#include "config/atomic_file.h"
#include "report/comparison.h"
#include "report/gnuplot.h"
#include "report/html_report.h"
#include "report/plot_data.h"
#include "report/plot_scripts.h"
#include "report/timeline_plot.h"

namespace hetps::report {

std::filesystem::path build_report(const std::vector<RunRecord>& runs,
                                   const std::filesystem::path& out, const ReportOptions& options) {
  if (runs.empty()) throw std::invalid_argument("build_report: no runs to report on");
  const Comparison comparison = compare_runs(runs);
  write_plot_data(comparison, out);
  std::vector<PlotScript> plots = plot_scripts(comparison);
  const std::vector<std::optional<EntryTimeline>> timelines =
      entry_timelines(comparison, options.timeline_window);
  for (size_t e = 0; e < timelines.size(); ++e) {
    if (!timelines[e] || timelines[e]->intervals.empty()) continue;
    write_timeline_data(*timelines[e], e, out);
    plots.push_back(timeline_plot(*timelines[e], e));
  }
  for (const PlotScript& plot : plots) {
    config::write_file_atomically(out / plot.script(), plot.text, "plot script");
    run_gnuplot(out, plot.script());
  }
  write_html_report(comparison, runs, plots, timelines, out);
  return out / kReportPage;
}

}  // namespace hetps::report
