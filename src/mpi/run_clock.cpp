#include "mpi/run_clock.h"

#include "mpi/patient_wait.h"

namespace hetps::mpi {

void RunClock::start(MPI_Comm comm, Patience patience, double from) {
  MPI_Request request;
  MPI_Ibarrier(comm, &request);
  wait_for(request, patience, [] {
    return std::string(
        "every rank at the start of training (MPI_Ibarrier, once each rank has set up its model "
        "and data shard): a rank that never gets there holds up the others");
  });
  start_ = MPI_Wtime() - from;
  latest_ = from;
}

void RunClock::stand_still() {
  state_.stands_at = now();
  state_.standing = true;
  standing_since_ = MPI_Wtime();
}

void RunClock::run_on() {
  state_.paused_seconds += MPI_Wtime() - standing_since_;
  state_.standing = false;
}

}  // namespace hetps::mpi
