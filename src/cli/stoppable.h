// A run the user may stop: SIGINT and SIGTERM (cli/stop_signals.h) make the engine stop it with
// a checkpoint instead of killing the process, and the command ends with a message saying how to
// go on. `hetps train` and every run of `hetps compare` go through it.
//
//   const metrics::Summary summary = stoppable(
//       config, run_dir, "hetps train --resume runs/bsp", progress,
//       [&](const std::atomic<bool>& stop) { return run_checkpointed_job(..., stop); });
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>

#include "cli/progress.h"
#include "cli/stop_signals.h"
#include "config/config.h"
#include "metrics/records.h"

namespace hetps::cli {

using StoppableJob = std::function<metrics::Summary(const std::atomic<bool>& stop)>;

// Runs `job` (given the flag a stop by signal sets) with SIGINT and SIGTERM turned into a
// checkpoint where the engine allows: on mpi they keep their default action, since mpirun
// kills the job anyway. A stop by signal becomes RunInterrupted, its message naming the
// checkpoints in `run_dir` and `continue_with`, the command that continues the run. The
// handlers are `installed` by the caller when given (a command of several runs, which must
// catch a signal between two of them too), else for the job's length.
metrics::Summary stoppable(const config::Config& config, const std::filesystem::path& run_dir,
                           const std::string& continue_with, ProgressDisplay& progress,
                           const StoppableJob& job, const StopSignals* installed = nullptr);

}  // namespace hetps::cli
