// Failures on the ranks of an MPI job, as the command line reports them: every rank's failure
// names the rank and host it happened on, and a mistake every rank finds alike is said once.
#pragma once

#include <functional>

namespace hetps::mpi {

// Runs `job` on this rank. A failure is rethrown as the same kind of error (bad input stays a
// std::invalid_argument, a stall an engine::StallError, an injected shard crash an
// engine::ShardCrashed) with "rank R on host H: " before its message. A JobShapeError, which
// every rank finds alike, is reported by rank 0 alone: the other ranks return quietly and are
// ended with the job when rank 0 fails.
void run_naming_this_rank(const std::function<void()>& job);

}  // namespace hetps::mpi
