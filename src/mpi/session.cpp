#include "mpi/session.h"

#include <mpi.h>

#include <stdexcept>

#include <fmt/format.h>

namespace hetps::mpi {

void start_session(int* argc, char*** argv) {
  int started = 0;
  MPI_Initialized(&started);
  if (started) return;
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  if (provided < MPI_THREAD_FUNNELED) {
    throw std::runtime_error("MPI: this MPI library cannot be used from a multi-threaded process");
  }
}

bool session_started() {
  int started = 0;
  int finished = 0;
  MPI_Initialized(&started);
  MPI_Finalized(&finished);
  return started && !finished;
}

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int world_size() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

std::string host_name() {
  char name[MPI_MAX_PROCESSOR_NAME];
  int length = 0;
  MPI_Get_processor_name(name, &length);
  return std::string(name, static_cast<size_t>(length));
}

std::string this_process() { return fmt::format("rank {} on host {}", world_rank(), host_name()); }

void finish(int exit_code) {
  if (!session_started()) return;
  if (exit_code == 0) {
    MPI_Finalize();
  } else {
    MPI_Abort(MPI_COMM_WORLD, exit_code);
  }
}

}  // namespace hetps::mpi
