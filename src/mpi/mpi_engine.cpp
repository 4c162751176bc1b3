#include "mpi/mpi_engine.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "engine/external_engines.h"
#include "engine/precise_wakeups.h"
#include "engine/step_calibration.h"
#include "mpi/communicator.h"
#include "mpi/patient_wait.h"
#include "mpi/rank_checkpoints.h"
#include "mpi/rank_layout.h"
#include "mpi/rank_setup.h"
#include "mpi/server_rank.h"
#include "mpi/session.h"
#include "mpi/shard_rank.h"
#include "mpi/wire/message_error.h"
#include "mpi/worker_rank.h"

namespace hetps::mpi {
namespace {

// The first worker rank measures a step alone while every other rank waits without taking a
// core, then tells them all; the others give up after run.start_timeout_s.
std::optional<double> calibrate(const config::Config& config, const data::DataSplit& data,
                                const engine::ModelSource& models, const RankLayout& layout,
                                MPI_Comm comm, engine::InjectedDelays& delays) {
  if (!delays.pads_any_compute()) return std::nullopt;
  const int measuring_rank = layout.worker_rank(0);
  double seconds = 0;
  if (layout.rank() == measuring_rank) {
    auto learner = models.make_learner();
    seconds = engine::measure_step_seconds(config, data.train, *learner);
  }
  MPI_Request request;
  MPI_Ibcast(&seconds, 1, MPI_DOUBLE, measuring_rank, comm, &request);
  wait_for(request, Patience::before_training(config.run), [&] {
    return fmt::format("the step time {} measures alone (MPI_Ibcast)", layout.describe_worker(0));
  });
  if (!std::isfinite(seconds) || seconds < 0) {
    throw MessageError(measuring_rank, fmt::format("a calibrated step of {} s, expected a finite "
                                                   "time >= 0",
                                                   seconds));
  }
  delays.set_calibrated_step(seconds);
  return seconds;
}

metrics::Summary run(const config::Config& config, const data::DataSplit& data,
                     const engine::ModelSource& models, engine::RunListener& listener,
                     const engine::RunCheckpoints& checkpoints) {
  if (!session_started()) {
    throw std::invalid_argument(
        "engine = \"mpi\": MPI is not running in this process; the mpi engine runs under "
        "`mpirun -np P hetps train --set engine=mpi ...`, one run at a time (not hetps compare)");
  }
  // Every wait sleeps between polls (patient_wait.h); with the default timer slack the first
  // 20 µs pause lasted about 70 µs, which cost a 4 MB push + pull 0.3 ms (bench/README.md).
  const engine::PreciseWakeups on_time;
  // Until the run starts, no stall inspector watches: each wait before it has its own deadline.
  const Patience patience = Patience::before_training(config.run);
  Communicator comm(patience);
  Communicator slice_comm(patience);
  const RankLayout layout(config.cluster, comm.get(), patience);
  const bool resumed =
      share_whether_resumed(checkpoints.resume_from != nullptr, comm.get(), layout, patience);
  // Links are real here: only compute is padded, so the link model never sees a message size.
  engine::InjectedDelays delays(config.cluster, config.seed, {});
  // A resumed run pads to the step its first start measured, which its workers' states hold.
  const std::optional<double> step =
      resumed ? std::nullopt : calibrate(config, data, models, layout, comm.get(), delays);
  const RankSetup setup{config, data,   models, comm.get(), slice_comm.get(),
                        layout, delays, step,   resumed};
  if (layout.rank() == layout.server_rank()) return run_server_rank(setup, listener, checkpoints);
  if (layout.is_server()) {
    run_shard_rank(setup);
  } else {
    run_worker_rank(setup);
  }
  return {};
}

bool is_primary_process(const config::Config&) {
  start_session();
  return world_rank() == 0;
}

}  // namespace

void register_mpi_engine() { engine::register_engine("mpi", {run, is_primary_process}); }

}  // namespace hetps::mpi
