// `hetps compare [--config FILE] --protocols LIST [--seeds N] [--set KEY=VALUE]... [--out DIR]
// [--quiet] [--force] [--timeline-window START:END]`: every --protocols entry on the same
// scenario for seeds seed, seed+1, ..., one after another (each run uses the whole machine).
// Writes <out>/<run>/seed-<s>/ per run and <out>/summary.csv, then prints the comparison table
// (with --quiet too) and writes the report into <out>/report (as `hetps report <out>` does).
#include <algorithm>
#include <iostream>
#include <memory>
#include <set>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include "cli/commands.h"
#include "cli/compare_table.h"
#include "cli/progress.h"
#include "cli/protocol_list.h"
#include "cli/run_files.h"
#include "cli/run_flags.h"
#include "cli/run_job.h"
#include "cli/staged_directory.h"
#include "cli/summary_csv.h"
#include "cli/timeline_window_flag.h"
#include "cli/usage_error.h"
#include "config/error.h"
#include "config/resolve.h"
#include "protocol/registry.h"

namespace hetps::cli {
namespace {

struct CompareFlags {
  RunFlags run;
  std::string protocols;
  int seeds = 1;
  report::ReportOptions report;
};

struct PlannedRun {
  config::Config config;
  std::string directory;  // relative to the output directory
};

// A `protocol.<parameter>` shared by all entries must belong to at least one of them.
void check_shared_params(const config::UserSettings& shared,
                         const std::vector<ProtocolEntry>& entries) {
  config::Config scratch;
  for (const auto& [name, param] : shared.apply_to(scratch)) {
    const bool used = std::any_of(entries.begin(), entries.end(), [&](const ProtocolEntry& e) {
      return protocol::find_protocol(e.protocol)->find_param(name) != nullptr;
    });
    if (!used) {
      std::vector<std::string> protocols;
      for (const auto& entry : entries) protocols.push_back(entry.protocol);
      throw config::ConfigError(
          fmt::format("{}: unknown key protocol.{}; none of the compared protocols ({}) has it",
                      param.where, name, fmt::join(protocols, ", ")));
    }
  }
}

// Every run, resolved and checked before the first one starts.
std::vector<PlannedRun> plan_runs(const CompareFlags& flags) {
  const std::vector<ProtocolEntry> entries = parse_protocol_list(flags.protocols);
  const config::UserSettings shared = user_settings(flags.run);
  check_shared_params(shared, entries);
  std::vector<PlannedRun> runs;
  std::set<std::string> directories;
  for (const ProtocolEntry& entry : entries) {
    config::UserSettings settings = shared;
    entry.add_to(settings);
    const config::Config config = config::resolve(settings, {.skip_foreign_params = true});
    check_names(config);
    const std::string directory = run_directory_name(config.run.name);
    if (!directories.insert(directory).second) {
      throw UsageError(fmt::format(
          "--protocols: two entries share the run directory name \"{}\"; rename one", directory));
    }
    for (int s = 0; s < flags.seeds; ++s) {
      PlannedRun run{config, ""};
      run.config.seed = config.seed + static_cast<uint64_t>(s);
      run.directory = fmt::format("{}/seed-{}", directory, run.config.seed);
      runs.push_back(std::move(run));
    }
  }
  return runs;
}

// The runs are finished and kept whatever happens here: a report that fails (gnuplot missing)
// is a warning, and the comparison still succeeds.
void write_compare_report(const std::filesystem::path& comparison,
                          const report::ReportOptions& options) {
  try {
    fmt::print("report: {}\n", write_report({comparison}, comparison / "report", options).string());
  } catch (const std::exception& error) {
    // The hint repeats the window asked for, so the report it writes is the one asked for.
    std::string window;
    if (options.timeline_window) {
      window = fmt::format(" --timeline-window {}:{}", options.timeline_window->start,
                           options.timeline_window->end
                               ? fmt::format("{}", *options.timeline_window->end)
                               : std::string());
    }
    fmt::print(std::cerr,
               "hetps compare: warning: the report was not written: {}\n"
               "The comparison is complete; to write its report, run: hetps report {}{}\n",
               error.what(), comparison.string(), window);
  }
}

void compare(const CompareFlags& flags) {
  const std::vector<PlannedRun> runs = plan_runs(flags);
  StagedDirectory out(flags.run.out.empty() ? "runs/compare" : flags.run.out, "summary.csv",
                      flags.run.force);
  const ProgressStyle style = progress_style(flags.run.quiet);
  std::vector<CompletedRun> completed;
  for (size_t i = 0; i < runs.size(); ++i) {
    const config::Config& config = runs[i].config;
    const std::string label =
        fmt::format("[{}/{}] {} seed {}", i + 1, runs.size(), config.run.name, config.seed);
    ProgressDisplay progress(style, label, config, std::cout);
    completed.push_back({config.run.name, runs[i].directory,
                         run_job(config, out.path() / runs[i].directory, progress)});
    progress.finish();
  }
  write_summary_csv(out.path() / "summary.csv", completed);
  out.commit();
  // The table is the result, not progress: --quiet prints it too. The blank line sets it
  // apart from the progress lines.
  fmt::print("{}{}\nruns and summary.csv in {}\n", flags.run.quiet ? "" : "\n",
             format_compare_table(completed), out.target().string());
  write_compare_report(out.target(), flags.report);
}

}  // namespace

void add_compare_command(CLI::App& app) {
  CLI::App* command =
      app.add_subcommand("compare", "Run several protocols on the same scenario and compare them");
  auto flags = std::make_shared<CompareFlags>();
  command
      ->add_option("--protocols", flags->protocols,
                   "Comma-separated entries, each PROTOCOL[:PARAM=VALUE]...; e.g. "
                   "bsp,asp,ssp:staleness=8")
      ->type_name("LIST")
      ->required();
  command->add_option("--seeds", flags->seeds, "Seeds per protocol: seed, seed+1, ...")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  add_run_flags(*command, flags->run);
  add_timeline_window_flag(*command, flags->report);
  command->callback([flags] { compare(*flags); });
}

}  // namespace hetps::cli
