#include "mpi/communicator.h"

#include <string>

#include "mpi/patient_wait.h"

namespace hetps::mpi {

Communicator::Communicator(Patience patience) {
  MPI_Request request;
  MPI_Comm_idup(MPI_COMM_WORLD, &comm_, &request);
  wait_for(request, patience, [] {
    return std::string(
        "every rank of the job to begin the run (MPI_Comm_idup of MPI_COMM_WORLD): a rank that "
        "never gets there, still loading its data say, holds up the others");
  });
}

Communicator::~Communicator() { MPI_Comm_free(&comm_); }

}  // namespace hetps::mpi
