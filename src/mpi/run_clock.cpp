#include "mpi/run_clock.h"

#include <string>
#include <thread>

#include "mpi/patient_wait.h"

namespace hetps::mpi {

namespace {

// How long the second start barrier is watched without sleeping: every rank left the first one,
// so the others come within a few scheduler slices; past this, a patient wait takes over.
constexpr double kAlignSeconds = 1.0;

}  // namespace

void RunClock::start(MPI_Comm comm, Patience patience, double from) {
  const auto what = [] {
    return std::string(
        "every rank at the start of training (MPI_Ibarrier, once each rank has set up its model "
        "and data shard): a rank that never gets there holds up the others");
  };
  MPI_Request request;
  MPI_Ibarrier(comm, &request);
  wait_for(request, patience, what);
  // The patient wait sleeps up to a millisecond between looks, so the ranks notice the
  // barrier's end that far apart, and the clocks would start as far apart: a rank 0 whose clock
  // starts late ends the run before the workers' last rounds by their clocks, and their
  // timelines lose those rounds. A second barrier, watched without sleeping, starts them
  // within a look of each other.
  MPI_Ibarrier(comm, &request);
  const double give_up = MPI_Wtime() + kAlignSeconds;
  int done = 0;
  while (!done && MPI_Wtime() < give_up) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (!done) std::this_thread::yield();
  }
  if (!done) wait_for(request, patience, what);
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
