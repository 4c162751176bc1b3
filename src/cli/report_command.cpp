// `hetps report RUN_DIR... [--out DIR] [--timeline-window START:END]`: the comparison report of
// finished runs, each RUN_DIR a `hetps compare` output or a `hetps train` run directory, into
// DIR (default <first RUN_DIR>/report), replacing an earlier report there. Prints the path of
// report.html.
#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/path_flags.h"
#include "cli/staged_directory.h"
#include "cli/timeline_window_flag.h"
#include "cli/usage_error.h"
#include "report/report.h"

namespace hetps::cli {
namespace {

struct ReportFlags {
  std::vector<std::string> run_directories;
  std::string out;  // empty: <first run directory>/report
  report::ReportOptions report;
};

void report_runs(const ReportFlags& flags) {
  const std::vector<std::filesystem::path> runs(flags.run_directories.begin(),
                                                flags.run_directories.end());
  const std::filesystem::path out =
      flags.out.empty() ? runs.front() / "report" : std::filesystem::path(flags.out);
  fmt::print("{}\n", write_report(runs, out, flags.report).string());
}

}  // namespace

std::filesystem::path write_report(const std::vector<std::filesystem::path>& run_directories,
                                   const std::filesystem::path& out,
                                   const report::ReportOptions& options) {
  // The runs first: a RUN_DIR that is not one must not leave `out` created.
  const std::vector<report::RunRecord> runs = report::read_runs(run_directories);
  for (const std::filesystem::path& run : run_directories) {
    if (std::filesystem::is_directory(out) && lies_within(run, out)) {
      throw UsageError(
          fmt::format("--out {}: it holds {}, which the report reads; choose another "
                      "--out",
                      out.string(), run.string()));
    }
  }
  // Regenerating a report is the usual case, so no --force; StagedDirectory still refuses to
  // replace anything but an earlier report (a directory holding report.html) or an empty one.
  StagedDirectory staged(out, report_output(), /*replace=*/true);
  report::build_report(runs, staged.path(), options);
  staged.commit();
  return staged.target() / report::kReportPage;
}

void add_report_command(CLI::App& app) {
  CLI::App* command = app.add_subcommand(
      "report",
      "Write the comparison report (report.html with plots, and the CSV data behind them) of "
      "finished runs");
  auto flags = std::make_shared<ReportFlags>();
  command
      ->add_option("RUN_DIR", flags->run_directories,
                   "hetps compare outputs or hetps train run directories")
      ->check(non_empty_path())
      ->required();
  command
      ->add_option("--out", flags->out,
                   "Report directory (default: <first RUN_DIR>/report); an earlier report there "
                   "is replaced")
      ->type_name("DIR")
      ->check(non_empty_path());
  add_timeline_window_flag(*command, flags->report);
  command->callback([flags] { report_runs(*flags); });
}

}  // namespace hetps::cli
