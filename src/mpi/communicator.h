// A run's own communicator: a duplicate of MPI_COMM_WORLD, so that one run's messages can never
// be taken for another's (nor for those of other MPI code in the process). Freed at the end.
#pragma once

#include <mpi.h>

#include "mpi/patient_wait.h"

namespace hetps::mpi {

class Communicator {
 public:
  // Every rank of the job duplicates MPI_COMM_WORLD together; throws engine::StallError after
  // `patience` (run.start_timeout_s) without them.
  explicit Communicator(Patience patience);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  MPI_Comm get() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

}  // namespace hetps::mpi
