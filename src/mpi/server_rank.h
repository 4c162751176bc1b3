// The server rank of an mpi run: the protocol, the global model and the evaluations
// (engine::ServerLoop), its messages carried by a ServerEndpoint. However the run ends, every
// worker rank is told to stop and returns.
#pragma once

#include "engine/engine.h"
#include "metrics/records.h"
#include "mpi/rank_setup.h"

namespace hetps::mpi {

// Throws what the run threw (a StallError for a stall, Interrupted after the checkpoint a stop
// asked for), after stopping the workers; a StallError too when a worker does not stop within
// `run.stall_timeout_s` of the end. Takes and resumes from `checkpoints` (rank_checkpoints.h).
metrics::Summary run_server_rank(const RankSetup& setup, engine::RunListener& listener,
                                 const engine::RunCheckpoints& checkpoints);

}  // namespace hetps::mpi
