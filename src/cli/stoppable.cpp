#include "cli/stoppable.h"

#include <optional>

#include <fmt/format.h>

#include "cli/usage_error.h"
#include "engine/run_checkpoints.h"
#include "engine/shard_failures.h"

namespace hetps::cli {
namespace {

// Under mpirun a signal reaches every rank, and mpirun kills the job soon after: rank 0 cannot
// stop the others with a checkpoint. There signals keep their default action, and a stopped job
// resumes from its last `run.checkpoint_interval` checkpoint.
bool stops_with_a_checkpoint(const config::Config& config) { return config.engine != "mpi"; }

}  // namespace

metrics::Summary stoppable(const config::Config& config, const std::filesystem::path& run_dir,
                           const std::string& continue_with, ProgressDisplay& progress,
                           const StoppableJob& job, const StopSignals* installed) {
  try {
    if (!stops_with_a_checkpoint(config)) {
      static const std::atomic<bool> never{false};
      return job(never);
    }
    std::optional<StopSignals> own;
    const StopSignals& signals = installed != nullptr ? *installed : own.emplace();
    try {
      return job(signals.requested());
    } catch (const engine::Interrupted& stop) {
      progress.finish();
      throw RunInterrupted(fmt::format(
          "stopped by {} at {:.3f} s of {} time, with a checkpoint in {}; continue with: {}",
          signals.signal_name(), stop.time(), clock_name(config),
          (run_dir / "checkpoints").string(), continue_with));
    }
  } catch (const engine::ShardCrashed&) {
    progress.finish();  // the message that says how to go on gets a line of its own
    throw;
  }
}

}  // namespace hetps::cli
