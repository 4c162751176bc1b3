// What the MPI tests that stage a wait between ranks share.
#pragma once

#include <mpi.h>

#include "mpi/patient_wait.h"

namespace hetps::testing {

// Seconds: far longer than any wait in these tests takes but the one under test.
inline constexpr double kPatient = 60;

// Every rank of the job gets here before any goes on.
inline void meet_everyone() {
  MPI_Request request;
  MPI_Ibarrier(MPI_COMM_WORLD, &request);
  mpi::wait_for(request);
}

}  // namespace hetps::testing
