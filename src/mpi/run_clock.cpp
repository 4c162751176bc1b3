#include "mpi/run_clock.h"

#include "mpi/patient_wait.h"

namespace hetps::mpi {

void RunClock::start(MPI_Comm comm) {
  MPI_Request request;
  MPI_Ibarrier(comm, &request);
  wait_for(request);
  start_ = MPI_Wtime();
}

}  // namespace hetps::mpi
