// A worker rank of an mpi run: worker `rank - cluster.servers`, trained by the same loop as on
// every real engine (engine::run_worker) over a WorkerEndpoint, until the server stops the run.
#pragma once

#include "mpi/rank_setup.h"

namespace hetps::mpi {

void run_worker_rank(const RankSetup& setup);

}  // namespace hetps::mpi
