// `hetps train [--config FILE] [--set KEY=VALUE]... [--out DIR] [--quiet] [--force]`:
// one run into one run directory (default runs/<run_name>). With `engine = "mpi"` every rank of
// the mpirun job runs it: rank 0 alone writes the directory and prints, and a rank's failure
// names the rank and host.
// `hetps train --resume DIR [--quiet]`: continues the unfinished run in DIR from its newest
// checkpoint (on mpi: `mpirun -np P hetps train --resume DIR`). SIGINT and SIGTERM stop a run
// with a checkpoint (exit 130), but on mpi. An injected server-shard crash
// (`cluster.shard_failures`) ends a run on `threads` or `mpi` with a message naming its last
// checkpoint and how to go on, or saying the run is lost (exit 3, shard_crashes.h).
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/compare_plan.h"
#include "cli/directory_lock.h"
#include "cli/mpi_launch.h"
#include "cli/path_flags.h"
#include "cli/program_name.h"
#include "cli/progress.h"
#include "cli/run_files.h"
#include "cli/run_flags.h"
#include "cli/run_job.h"
#include "cli/staged_directory.h"
#include "cli/stoppable.h"
#include "cli/usage_error.h"
#include "config/resolve.h"
#include "engine/engine.h"
#ifdef HETPS_WITH_MPI
#include "mpi/rank_failures.h"
#include "mpi/rank_layout.h"
#include "mpi/session.h"
#endif

namespace hetps::cli {
namespace {

std::string time_to_target(const metrics::Summary& summary) {
  if (!summary.time_to_target) return fmt::format("target {} not reached", summary.target_accuracy);
  return fmt::format("target {} reached at {:.2f} s", summary.target_accuracy,
                     *summary.time_to_target);
}

void print_result(const config::Config& config, const metrics::Summary& summary,
                  const std::filesystem::path& dir, bool quiet) {
  if (quiet) {
    // The one line says so when the run ended before its budget or target, as when every
    // worker failed: its accuracy is then no result of the training asked for.
    const bool early = summary.stop_reason != "max_samples" && summary.stop_reason != "max_time" &&
                       summary.stop_reason != "target";
    fmt::print("{}: final accuracy {:.4f}, best {:.4f}, {}; {}{}\n", config.run.name,
               summary.final_accuracy, summary.best_accuracy, time_to_target(summary),
               early ? fmt::format("ended early ({}); ", summary.stop_reason) : "", dir.string());
    return;
  }
  fmt::print(
      "{} finished ({}): {} samples, {:.1f} s {} time, {:.1f} s wall\n"
      "  final accuracy {:.4f}, best {:.4f}; {}\n"
      "  run directory: {}\n",
      config.run.name, summary.stop_reason, summary.samples, summary.total_time, clock_name(config),
      summary.wall_seconds, summary.final_accuracy, summary.best_accuracy, time_to_target(summary),
      dir.string());
}

// The command that continues the run in `dir`: on mpi, a job of as many ranks as the run's.
std::string continue_train(const config::Config& config, const std::filesystem::path& dir) {
  const std::string resume = fmt::format("{} train --resume {}", program_name(), dir.string());
  if (config.engine != "mpi") return resume;
  return fmt::format("mpirun -np {} {}", config.cluster.servers + config.cluster.workers, resume);
}

void train_into_directory(const config::Config& config, const RunFlags& flags) {
  const std::filesystem::path out =
      flags.out.empty() ? std::filesystem::path("runs") / run_directory_name(config.run.name)
                        : std::filesystem::path(flags.out);
  StagedDirectory dir(out, run_output(), flags.force);
  ProgressDisplay progress(progress_style(flags.quiet, config), config.run.name, config, std::cout);
  const std::string continue_with = continue_train(config, dir.target());
  // Printed while the stop signals are still taken, here and in `resume`: a signal just after
  // the run's end is moot, and would otherwise kill the process before it says how it ended.
  stoppable(config, dir.target(), continue_with, progress, [&](const std::atomic<bool>& stop) {
    const metrics::Summary summary =
        run_checkpointed_job(config, dir, continue_with, progress, stop);
    progress.finish();
    print_result(config, summary, dir.target(), flags.quiet);
    return summary;
  });
}

// The config of the run `flags.resume` names, after refusing what --resume does not take and a
// directory that holds no unfinished run. On mpi every rank reads it: the run directory must be
// at the same path on every host (a shared file system); only rank 0 reads the checkpoint.
config::Config config_to_resume(const RunFlags& flags) {
  if (!flags.config_file.empty() || !flags.sets.empty() || !flags.out.empty() || flags.force) {
    throw FlagError(
        "--resume continues a run with the config it was started with, in its own directory: it "
        "takes no --config, --set, --out or --force");
  }
  const std::filesystem::path dir = flags.resume;
  if (!std::filesystem::is_directory(dir)) {
    throw UsageError(fmt::format("--resume {}: {}", dir.string(),
                                 std::filesystem::exists(dir)
                                     ? "not a directory; expected a run directory"
                                     : "no such directory"));
  }
  if (!std::filesystem::exists(dir / "config.toml")) {
    const std::string comparison =
        std::filesystem::exists(dir / kComparePlanFile)
            ? fmt::format("; it is a comparison: hetps compare --resume {}", dir.string())
            : "";
    throw UsageError(fmt::format("--resume {}: not a run directory (it holds no config.toml){}",
                                 dir.string(), comparison));
  }
  if (std::filesystem::exists(dir / "summary.json")) {
    throw UsageError(
        fmt::format("--resume {}: the run has finished (it holds summary.json); nothing to resume",
                    dir.string()));
  }
  RunFlags from_directory;
  from_directory.config_file = (dir / "config.toml").string();
  return config::resolve(user_settings(from_directory), {.written_by_hetps = true});
}

void resume(const config::Config& config, const std::filesystem::path& dir, bool quiet) {
  // A run still going may be writing a checkpoint: its checkpoints are not read, nor named as
  // the one to continue from. resume_job takes the lock itself.
  DirectoryLock::check_free(dir);
  const ResumePoint point = checkpoint_to_resume(config, dir);
  if (!quiet) {
    fmt::print("{}: continues from {} at {:.3f} s of {} time\n", config.run.name,
               point.file.string(), point.time, clock_name(config));
  }
  ProgressDisplay progress(progress_style(quiet, config), config.run.name, config, std::cout);
  const std::string continue_with = continue_train(config, dir);
  stoppable(config, dir, continue_with, progress, [&](const std::atomic<bool>& stop) {
    const metrics::Summary summary = resume_job(config, dir, point, continue_with, progress, stop);
    progress.finish();
    print_result(config, summary, dir, quiet);
    return summary;
  });
}

// The ranks other than 0 of an mpi run: the same job, without outputs (rank 0 writes them).
void train_without_outputs(const config::Config& config) {
  struct Silent : engine::RunListener {
    void on_eval(const metrics::EvalRecord&) override {}
    void on_event(const nlohmann::json&) override {}
  } silent;
  train_job(config, silent);
}

void train(const RunFlags& flags) {
  const bool resuming = !flags.resume.empty();
  // A policy file searched on another job still sets x, as asked (a job that changed a little
  // may keep its policy), but the user hears which settings differ: once, from rank 0 on mpi.
  std::vector<std::string> warnings;
  const config::UserSettings settings = resuming ? config::UserSettings() : user_settings(flags);
  const config::Config config =
      resuming ? config_to_resume(flags)
               : config::resolve(settings,
                                 {.warn = [&](const std::string& w) { warnings.push_back(w); }});
  check_names(config, &settings);
  if (config.engine != "mpi") {
    refuse_several_ranks(fmt::format("train with engine = \"{}\"", config.engine),
                         "set engine = \"mpi\" to train one run over the ranks, or start hetps "
                         "without mpirun");
  }
  const bool primary = engine::is_primary_process(config);
  if (primary) {
    for (const std::string& warning : warnings) fmt::print(stderr, "hetps: warning: {}\n", warning);
  }
  const auto job = [&] {
    if (!primary) {
      train_without_outputs(config);
    } else if (resuming) {
      resume(config, flags.resume, flags.quiet);
    } else {
      train_into_directory(config, flags);
    }
  };
#ifdef HETPS_WITH_MPI
  if (config.engine == "mpi") {
    mpi::run_naming_this_rank([&] {
      // Before a resume says where it continues from, and with a remedy it can take.
      mpi::check_job_shape(config.cluster, mpi::world_size(), /*workers_may_change=*/!resuming);
      job();
    });
    return;
  }
#endif
  job();
}

}  // namespace

void add_train_command(CLI::App& app) {
  CLI::App* command = app.add_subcommand("train", "Train one run into a run directory");
  auto flags = std::make_shared<RunFlags>();
  add_run_flags(*command, *flags);
  command
      ->add_option("--resume", flags->resume,
                   "Continue the unfinished run in DIR from its newest checkpoint "
                   "(run.checkpoint_interval takes them, and SIGINT and SIGTERM but on mpi)")
      ->type_name("DIR")
      ->check(non_empty_path());
  command->callback([flags] { train(*flags); });
}

}  // namespace hetps::cli
