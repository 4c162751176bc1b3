#include "mpi/communicator.h"

#include "mpi/patient_wait.h"

namespace hetps::mpi {

Communicator::Communicator() {
  MPI_Request request;
  MPI_Comm_idup(MPI_COMM_WORLD, &comm_, &request);
  wait_for(request);
}

Communicator::~Communicator() { MPI_Comm_free(&comm_); }

}  // namespace hetps::mpi
