// The run's wall clock on a rank of an MPI job: seconds since the barrier all ranks pass at the
// start (MPI_Wtime, local to each host; the barrier aligns the starts to well within the time a
// message takes), less the time it was told to stand still.
#pragma once

#include <mpi.h>

namespace hetps::mpi {

class RunClock {
 public:
  // Waits until every rank of `comm` got here, then starts.
  void start(MPI_Comm comm);
  double now() const { return MPI_Wtime() - start_; }
  // The last `seconds` do not count (the server evaluated).
  void stand_still(double seconds) { start_ += seconds; }

 private:
  double start_ = 0;
};

}  // namespace hetps::mpi
