// This process's part in an MPI job. MPI is started once, when something first needs it (the
// mpi engine's `is_primary_process`, a test binary's main), and ended by `finish` with the
// process's exit status. Only the thread that started MPI calls it (MPI_THREAD_FUNNELED):
// every MPI call of hetps is made by the thread that runs the engine.
#pragma once

#include <string>

namespace hetps::mpi {

// Starts MPI unless it is already running; `argc`/`argv` may be null.
void start_session(int* argc = nullptr, char*** argv = nullptr);
// Whether MPI is running (started and not finished).
bool session_started();

// Of MPI_COMM_WORLD; MPI must be running.
int world_rank();
int world_size();
// This host's name, as MPI gives it.
std::string host_name();
// "rank R on host H": where a message comes from.
std::string this_process();

// Ends this process's part in the job, when MPI is running: MPI_Finalize after success;
// after a failure MPI_Abort with `exit_code`, which ends every rank, so that a failing rank
// never leaves the others waiting for it.
void finish(int exit_code);

}  // namespace hetps::mpi
