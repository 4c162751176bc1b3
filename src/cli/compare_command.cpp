// `hetps compare [--config FILE] --protocols LIST [--seeds N] [--set KEY=VALUE]... [--out DIR]
// [--quiet] [--force] [--timeline-window START:END]`: every --protocols entry on the same
// scenario for seeds seed, seed+1, ..., one after another (each run uses the whole machine).
// Writes <out>/compare.json (the plan), <out>/<run>/seed-<s>/ per run and <out>/summary.csv,
// then prints the comparison table (with --quiet too) and writes the report into <out>/report
// (as `hetps report <out>` does). The output directory appears with its plan, before the first
// run starts, and from then on outlives the process. Each run takes checkpoints as `hetps train`
// does (`run.checkpoint_interval`, into <out>/<run>/seed-<s>/checkpoints, and one when SIGINT or
// SIGTERM stops it, which ends the command with exit 130 and how to go on; a signal between two
// runs stops it before the next, alike; once every run has finished, the comparison completes
// and its report is written). `hetps compare
// --resume <out> [--quiet]` continues a comparison that was stopped or killed: finished runs are
// kept, an unfinished one goes on from its newest usable checkpoint, or runs again from its
// start when it holds none. The mpi engine is refused: it runs one run per mpirun job. A protocol
// parameter shared by the entries (--config, --set) serves those that have it and where it acts.
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include "checkpoint/checkpoint_error.h"
#include "cli/commands.h"
#include "cli/compare_plan.h"
#include "cli/compare_table.h"
#include "cli/directory_lock.h"
#include "cli/mpi_launch.h"
#include "cli/number_flags.h"
#include "cli/path_flags.h"
#include "cli/program_name.h"
#include "cli/progress.h"
#include "cli/protocol_list.h"
#include "cli/run_checkpoints.h"
#include "cli/run_files.h"
#include "cli/run_flags.h"
#include "cli/run_job.h"
#include "cli/staged_directory.h"
#include "cli/stop_signals.h"
#include "cli/stoppable.h"
#include "cli/summary_csv.h"
#include "cli/timeline_window_flag.h"
#include "cli/usage_error.h"
#include "config/atomic_file.h"
#include "config/error.h"
#include "config/resolve.h"
#include "protocol/registry.h"
#include "report/summary_file.h"
#include "report/timeline_window.h"

namespace hetps::cli {
namespace {

// The most seeds a comparison takes: far more runs than a machine gets through, few enough to
// plan them all at the start.
constexpr int kMostSeeds = 10'000;

// The command that continues the comparison in `dir`.
std::string continue_compare(const std::filesystem::path& dir) {
  return fmt::format("{} compare --resume {}", program_name(), dir.string());
}

struct CompareFlags {
  RunFlags run;  // run.resume: the comparison to continue; empty: a new one
  std::string protocols;
  int seeds = 1;
  bool seeds_given = false;
  report::ReportOptions report;
};

// A `protocol.<parameter>` shared by all entries must belong to at least one of them.
void check_shared_params_belong(const config::UserSettings& shared,
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

// ... and act in at least one: resolve skips it in the entries where it would do nothing
// (ParamSpec::only_with), those that give it themselves override it, and one that no entry
// takes would do nothing at all. A default value is harmless anywhere, as `train` takes it.
void check_shared_params_act(const config::UserSettings& shared,
                             const std::vector<ProtocolEntry>& entries,
                             const std::vector<config::Config>& entry_configs,
                             const std::set<std::string>& taken) {
  config::Config scratch;
  for (const auto& [name, param] : shared.apply_to(scratch)) {
    bool harmless = taken.contains(name);
    // Where resolve skipped it as idle, if anywhere: not taken there, nor given by the entry.
    const protocol::ParamSpec* idle_in = nullptr;
    bool overridden = false;
    for (size_t i = 0; i < entries.size() && !harmless; ++i) {
      const protocol::ParamSpec* spec =
          protocol::find_protocol(entry_configs[i].protocol.name)->find_param(name);
      if (spec == nullptr) continue;
      harmless = param.value == spec->default_value;
      if (std::any_of(entries[i].params.begin(), entries[i].params.end(),
                      [&](const auto& own) { return own.first == name; })) {
        overridden = true;
      } else if (idle_in == nullptr) {
        idle_in = spec;
      }
    }
    if (harmless) continue;
    if (idle_in == nullptr) {
      throw config::ConfigError(fmt::format(
          "{}: protocol.{} is given by every compared entry that has it, so it would do nothing",
          param.where, name));
    }
    const auto& [other, values] = *idle_in->only_with;
    throw config::ConfigError(fmt::format(
        "{}: protocol.{} acts only with protocol.{} = \"{}\", and no compared entry that has it{} "
        "has that, so it would do nothing",
        param.where, name, other, fmt::join(values, "\" or \""),
        overridden ? " and does not give it itself" : ""));
  }
}

// `settings`, the shared ones and `entry`'s, resolved. A shared setting refused with the
// entry's protocol or parameters (Sync-Switch's budget with its bsp_fraction) names the entry
// too; one refused whatever the entry (a bad learning rate), does not.
config::Config resolve_entry(const config::UserSettings& shared,
                             const config::UserSettings& settings, const ProtocolEntry& entry,
                             size_t entry_count, std::set<std::string>* shared_params_taken) {
  const std::string origin = entry.origin();
  try {
    return config::resolve(settings,
                           {.compare_entry = origin, .shared_params_taken = shared_params_taken});
  } catch (const config::ConfigError& error) {
    const std::string_view message = error.what();
    if (entry_count == 1 || message.starts_with(origin)) throw;
    try {
      config::resolve(shared, {.compare_entry = origin});
    } catch (const config::ConfigError& alone) {
      if (message == alone.what()) throw error;
    }
    throw config::ConfigError(fmt::format("{} (with {})", message, origin));
  }
}

// Every run, resolved and checked before the first one starts.
std::vector<PlannedRun> plan_runs(const CompareFlags& flags) {
  const std::vector<ProtocolEntry> entries = parse_protocol_list(flags.protocols);
  const config::UserSettings shared = user_settings(flags.run);
  refuse_setting(shared, "protocol.name",
                 "hetps compare takes each run's protocol from --protocols; give it there");
  refuse_setting(shared, "run.name",
                 "hetps compare names each run after its --protocols entry; leave run.name out");
  check_shared_params_belong(shared, entries);
  std::vector<config::Config> entry_configs;
  std::set<std::string> shared_params_taken;  // by some entry
  std::vector<PlannedRun> runs;
  std::set<std::string> directories;
  std::vector<std::pair<config::ProtocolConfig, std::string>> protocols;  // by entry text
  for (const ProtocolEntry& entry : entries) {
    config::UserSettings settings = shared;
    entry.add_to(settings);
    const config::Config config =
        resolve_entry(shared, settings, entry, entries.size(), &shared_params_taken);
    entry_configs.push_back(config);
    check_names(config, &settings);
    // Refused here, before the comparison's directory is written; the engine would refuse the
    // first run (MPI is not started for compare).
    if (config.engine == "mpi") {
      throw UsageError(
          "engine = \"mpi\": hetps compare runs its runs one after another in one process, and "
          "the mpi engine runs one run per mpirun job; start one `mpirun ... hetps train` per run "
          "instead");
    }
    const std::string directory = run_directory_name(config.run.name);
    if (!directories.insert(directory).second) {
      throw FlagError(fmt::format(
          "--protocols: two entries share the run directory name \"{}\"; rename one", directory));
    }
    // Two entries with the same resolved protocol ("ssp" and "ssp:staleness=3", its default)
    // would run the same runs twice.
    for (const auto& [protocol, text] : protocols) {
      if (protocol == config.protocol) {
        throw FlagError(fmt::format(
            "--protocols: entries \"{}\" and \"{}\" run the same settings (a parameter left "
            "out takes its default: hetps protocols lists them); drop one",
            text, entry.text));
      }
    }
    protocols.emplace_back(config.protocol, entry.text);
    // The last seed must still be one a config holds (a TOML integer).
    constexpr uint64_t kLargestSeed = std::numeric_limits<int64_t>::max();
    if (config.seed > kLargestSeed - static_cast<uint64_t>(flags.seeds - 1)) {
      throw FlagError(
          fmt::format("--seeds {}: the seeds from seed = {} on would pass the largest "
                      "seed, {}",
                      flags.seeds, config.seed, kLargestSeed));
    }
    for (int s = 0; s < flags.seeds; ++s) {
      config::Config seeded = config;
      seeded.seed = config.seed + static_cast<uint64_t>(s);
      runs.push_back(planned_run(std::move(seeded)));
    }
  }
  check_shared_params_act(shared, entries, entry_configs, shared_params_taken);
  // Resolve leaves this to compare: the momentum may be one entry's protocol's own (ASP's 0).
  if (const auto where = shared.where_set("train.nesterov");
      where && std::ranges::all_of(entry_configs, [](const config::Config& config) {
        return config.train.nesterov && config.train.momentum == 0;
      })) {
    throw config::ConfigError(fmt::format(
        "{}: train.nesterov acts only with train.momentum > 0, and no compared entry has one, so "
        "it would do nothing",
        *where));
  }
  return runs;
}

// The runs are finished and kept whatever happens here. A report that fails (gnuplot missing)
// fails the command, which promised it, and says how to write it once the cause is gone.
void write_compare_report(const std::filesystem::path& comparison,
                          const report::ReportOptions& options) {
  try {
    fmt::print("report: {}\n", write_report({comparison}, comparison / "report", options).string());
  } catch (const std::exception& error) {
    // The hint repeats the window asked for, so the report it writes is the one asked for.
    std::string window;
    if (options.timeline_window) {
      window = " --timeline-window " + report::timeline_window_text(*options.timeline_window);
    }
    throw std::runtime_error(
        fmt::format("the report was not written: {}\nThe comparison is complete; to write its "
                    "report, run: hetps report {}{}",
                    error.what(), comparison.string(), window));
  }
}

// The checkpoint the unfinished run in `run_dir` goes on from: its newest that reads back whole
// and fits the plan's `config`. None when the run left no directory (it was stopped before its
// first checkpoint, or never started) or one without such a checkpoint (named on stderr): it
// then runs again from its start.
std::optional<ResumePoint> checkpoint_to_continue(const std::filesystem::path& run_dir,
                                                  const config::Config& config) {
  if (!std::filesystem::exists(run_dir)) return std::nullopt;
  try {
    return load_resume_point(run_dir, config, warn_skipped_checkpoint);
  } catch (const checkpoint::CheckpointError& error) {
    fmt::print(std::cerr, "hetps compare: warning: {}; the run starts again\n", error.what());
    return std::nullopt;
  }
}

// Trains the planned `run` of the comparison in `dir` to its end: from its checkpoint when it
// holds one, else from its start. A stop by signal ends it with a checkpoint and the command
// that continues the comparison.
metrics::Summary train_planned_run(const PlannedRun& run, const std::filesystem::path& dir,
                                   const std::string& label, bool quiet,
                                   const StopSignals& signals) {
  const config::Config& config = run.config;
  const std::filesystem::path run_dir = dir / run.directory;
  const std::string continue_with = continue_compare(dir);
  const std::optional<ResumePoint> point = checkpoint_to_continue(run_dir, config);
  if (point && !quiet) {
    fmt::print("{}: continues from its checkpoint at {:.3f} s of {} time\n", label, point->time,
               clock_name(config));
  }
  std::optional<StagedDirectory> staged;
  if (!point) {
    // What a stopped run left holds no checkpoint to go on from: it runs again from the start,
    // replacing it as --force would, so not where another process still writes it or where it
    // holds what no run writes.
    DirectoryLock::check_free(run_dir);
    staged.emplace(run_dir, run_output(), /*replace=*/true, "--resume");
  }
  ProgressDisplay progress(progress_style(quiet, config), label, config, std::cout);
  const metrics::Summary summary = stoppable(
      config, run_dir, continue_with, progress,
      [&](const std::atomic<bool>& stop) {
        return point ? resume_job(config, run_dir, *point, continue_with, progress, stop)
                     : run_checkpointed_job(config, *staged, continue_with, progress, stop);
      },
      &signals);
  progress.finish();
  return summary;
}

// Runs `plan` in the comparison directory `dir`, keeping the runs finished there already, and
// writes summary.csv. SIGINT and SIGTERM stop a run with a checkpoint (stoppable); one that
// comes between two runs stops the comparison before the next.
std::vector<CompletedRun> run_to_the_end(const ComparePlan& plan, const std::filesystem::path& dir,
                                         bool quiet) {
  const StopSignals signals;
  std::vector<CompletedRun> completed;
  for (size_t i = 0; i < plan.runs.size(); ++i) {
    const PlannedRun& run = plan.runs[i];
    const std::string label = fmt::format("[{}/{}] {} seed {}", i + 1, plan.runs.size(),
                                          run.config.run.name, run.config.seed);
    const std::filesystem::path summary = dir / run.directory / "summary.json";
    if (std::filesystem::exists(summary)) {
      completed.push_back(
          {run.config.run.name, run.directory, report::read_summary_file(summary).summary});
      if (!quiet) fmt::print("{}: finished before, kept\n", label);
      continue;
    }
    if (signals.requested()) {
      throw RunInterrupted(fmt::format(
          "stopped by {} before {}; the runs finished before it are kept; continue with: {}",
          signals.signal_name(), label, continue_compare(dir)));
    }
    completed.push_back(
        {run.config.run.name, run.directory, train_planned_run(run, dir, label, quiet, signals)});
  }
  config::write_file_atomically(dir / "summary.csv", summary_csv_text(completed),
                                "comparison summary");
  return completed;
}

// Runs `plan` to the end, prints the table and writes the report.
void run_plan(const ComparePlan& plan, const std::filesystem::path& dir, bool quiet) {
  const std::vector<CompletedRun> completed = run_to_the_end(plan, dir, quiet);
  // The table is the result, not progress: --quiet prints it too. The blank line sets it
  // apart from the progress lines.
  std::vector<double> eval_intervals;
  for (const PlannedRun& run : plan.runs) eval_intervals.push_back(run.config.train.eval_interval);
  fmt::print("{}{}{}\n\nruns and summary.csv in {}\n", quiet ? "" : "\n",
             format_compare_table(completed), format_evaluation_grid(eval_intervals), dir.string());
  write_compare_report(dir, plan.report);
}

void compare(const CompareFlags& flags) {
  if (flags.protocols.empty()) {
    throw FlagError("--protocols is required (or --resume DIR, to continue a comparison)");
  }
  const ComparePlan plan{plan_runs(flags), flags.report};
  const std::filesystem::path target = flags.run.out.empty() ? "runs/compare" : flags.run.out;
  if (!flags.run.force && std::filesystem::exists(target / kComparePlanFile) &&
      !std::filesystem::exists(target / "summary.csv")) {
    throw UsageError(fmt::format(
        "output directory {} holds a comparison that did not finish; continue it with {}, or "
        "pass --force to replace it",
        target.string(), continue_compare(target)));
  }
  StagedDirectory out(target, comparison_output(), flags.run.force);
  write_compare_plan(out.path(), plan);
  // In place from its plan on: its runs' checkpoints must outlive the process, and a stopped
  // comparison is continued with --resume.
  out.commit();
  run_plan(plan, out.target(), flags.run.quiet);
}

// `--resume DIR`, after refusing what it does not take and a comparison that has finished.
void resume_comparison(const CompareFlags& flags) {
  if (!flags.protocols.empty() || flags.seeds_given || !flags.run.config_file.empty() ||
      !flags.run.sets.empty() || !flags.run.out.empty() || flags.run.force ||
      flags.report.timeline_window) {
    throw FlagError(
        "--resume continues a comparison with the runs it planned, in its own directory: it "
        "takes no --protocols, --seeds, --config, --set, --out, --force or --timeline-window");
  }
  const std::filesystem::path dir = flags.run.resume;
  if (std::filesystem::exists(dir / "summary.csv")) {
    throw UsageError(fmt::format(
        "--resume {}: the comparison has finished (it holds summary.csv); nothing to resume. "
        "Its report, if it was not written, is written by: hetps report {}",
        dir.string(), dir.string()));
  }
  if (!std::filesystem::exists(dir / kComparePlanFile)) {
    throw UsageError(fmt::format(
        "--resume {}: not a comparison directory (it holds no {}); a comparison stopped before "
        "it wrote its plan leaves nothing to resume",
        dir.string(), kComparePlanFile));
  }
  // Held as a new comparison holds it: two processes on one comparison would run its runs
  // twice, and the second would stop on the first's run directories.
  const DirectoryLock lock(dir);
  const ComparePlan plan = read_compare_plan(dir);
  for (const PlannedRun& run : plan.runs) check_names(run.config);
  refuse_changed_inputs(plan, dir);
  run_plan(plan, dir, flags.run.quiet);
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
      // Given empty (an unset shell variable, say), it is not the flag left out.
      ->check(CLI::Validator(
          [](const std::string& value) {
            return value.empty() ? std::string("an empty list; expected PROTOCOL[:PARAM=VALUE],...")
                                 : std::string();
          },
          "LIST"));
  const CLI::Option* seeds =
      command->add_option("--seeds", flags->seeds, "Seeds per protocol: seed, seed+1, ...")
          ->type_name("N")
          // Bounded: the plan of every run stays in memory.
          ->transform(number_within(1, kMostSeeds, /*whole=*/true));
  add_run_flags(*command, flags->run);
  add_timeline_window_flag(*command, flags->report);
  command
      ->add_option("--resume", flags->run.resume,
                   "Continue the stopped comparison in DIR with the runs it planned: finished "
                   "runs are kept, an unfinished one goes on from its newest checkpoint (or "
                   "from its start, without one), the others run")
      ->type_name("DIR")
      ->check(non_empty_path());
  command->callback([flags, seeds] {
    refuse_several_ranks("compare",
                         "start it without mpirun: a comparison runs in one process (engine "
                         "\"mpi\" is for train)");
    flags->seeds_given = seeds->count() > 0;
    if (flags->run.resume.empty()) {
      compare(*flags);
    } else {
      resume_comparison(*flags);
    }
  });
}

}  // namespace hetps::cli
