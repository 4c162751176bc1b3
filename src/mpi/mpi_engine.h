// The mpi engine (`engine = "mpi"`): a real run across processes and hosts, started as
// `mpirun -np P hetps train --set engine=mpi ...` (or `srun` under SLURM). Ranks 0..S-1 are
// the server shards (S = cluster.servers), rank 0 also running the protocol, the evaluations
// and the run's outputs (shard_rank.h for the others); ranks S..P-1 are workers 0..P-S-1; P
// must equal S + cluster.workers. Messages are non-blocking and waits never spin
// (patient_wait.h).
// Heterogeneity: compute speeds are injected as on the threads engine (a step calibrated once,
// on one worker rank alone, padded to calibrated / speed); links are real, so no link delay is
// injected. `cluster.failures`: a `crash` makes the worker tell the server it is gone and idle
// until the end, since a rank that really dies ends the whole mpirun job (Debian's OpenMPI has
// no fault-tolerant MPI; the answer is restarting from a checkpoint with --resume); a `hang`
// leaves the worker silent until the stall inspector stops the run, naming its rank and host.
#pragma once

namespace hetps::mpi {

// Makes `engine = "mpi"` available to engine::run and engine::is_primary_process in this
// process; call it once at start.
void register_mpi_engine();

}  // namespace hetps::mpi
