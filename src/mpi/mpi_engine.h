// The mpi engine (`engine = "mpi"`): a real run across processes and hosts, started as
// `mpirun -np P hetps train --set engine=mpi ...` (or `srun` under SLURM). Rank 0 is the
// server (protocol, global model, evaluations, the run's outputs); ranks 1..P-1 are workers
// 0..P-2; P must equal cluster.servers + cluster.workers. Messages are non-blocking and waits
// never spin (patient_wait.h).
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
