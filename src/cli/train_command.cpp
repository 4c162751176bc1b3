// `hetps train [--config FILE] [--set KEY=VALUE]... [--out DIR] [--quiet] [--force]`:
// one run into one run directory (default runs/<run_name>). With `engine = "mpi"` every rank of
// the mpirun job runs it: rank 0 alone writes the directory and prints, and a rank's failure
// names the rank and host.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/progress.h"
#include "cli/run_files.h"
#include "cli/run_flags.h"
#include "cli/run_job.h"
#include "cli/staged_directory.h"
#include "config/resolve.h"
#include "engine/engine.h"
#ifdef HETPS_WITH_MPI
#include "mpi/rank_failures.h"
#endif

namespace hetps::cli {
namespace {

std::string time_to_target(const metrics::Summary& summary) {
  if (!summary.time_to_target) return fmt::format("target {} not reached", summary.target_accuracy);
  return fmt::format("target {} reached at {:.1f} s", summary.target_accuracy,
                     *summary.time_to_target);
}

void print_result(const config::Config& config, const metrics::Summary& summary,
                  const std::filesystem::path& dir, bool quiet) {
  if (quiet) {
    fmt::print("{}: final accuracy {:.4f}, best {:.4f}, {}; {}\n", config.run.name,
               summary.final_accuracy, summary.best_accuracy, time_to_target(summary),
               dir.string());
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

void train_into_directory(const config::Config& config, const RunFlags& flags) {
  const std::filesystem::path out =
      flags.out.empty() ? std::filesystem::path("runs") / run_directory_name(config.run.name)
                        : std::filesystem::path(flags.out);
  StagedDirectory dir(out, "summary.json", flags.force);
  ProgressDisplay progress(progress_style(flags.quiet), config.run.name, config, std::cout);
  const metrics::Summary summary = run_job(config, dir.path(), progress);
  progress.finish();
  dir.commit();
  print_result(config, summary, dir.target(), flags.quiet);
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
  const config::Config config = config::resolve(user_settings(flags));
  check_names(config);
  const bool primary = engine::is_primary_process(config);
  const auto job = [&] {
    if (primary) {
      train_into_directory(config, flags);
    } else {
      train_without_outputs(config);
    }
  };
#ifdef HETPS_WITH_MPI
  if (config.engine == "mpi") {
    mpi::run_naming_this_rank(job);
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
  command->callback([flags] { train(*flags); });
}

}  // namespace hetps::cli
