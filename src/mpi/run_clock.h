// The run's clock on a rank of an MPI job: rank 0's seconds since the barrier all ranks pass at
// the start, less the pauses for rank 0's evaluations, the same engine time on every rank. Each
// other rank sets its clock from rank 0's, read across the quickest of a few round trips
// (MPI_Wtime is local to each host, and ranks leave a barrier up to a scheduler slice apart on a
// loaded host: a worker whose clock ran ahead of rank 0's lost its last rounds from its timeline,
// which rank 0 ends at its own end of the run).
// Rank 0 stands its clock still while it evaluates and tells every worker rank its clock's
// state (kClock) when it stops and when it runs on again, with the total paused so far: a
// worker's clock then shows rank 0's time of the pause until the pause is over and leaves it
// out afterwards, as the threads engine's clock does for every thread. Two small messages per
// worker and evaluation.
#pragma once

#include <algorithm>

#include <mpi.h>

#include "mpi/patient_wait.h"
#include "mpi/wire/headers.h"

namespace hetps::mpi {

class RunClock {
 public:
  // Rank 0's clock as it tells the worker ranks (kClock): sent as bytes.
  using State = ClockState;

  // Waits until every rank of `comm` got here, then starts at `from` seconds (a resumed run
  // goes on from its checkpoint's time) and sets every other rank's clock from rank 0's;
  // throws engine::StallError after `patience` (run.start_timeout_s) without them, and
  // MessageError when rank 0's answer is not a time.
  void start(MPI_Comm comm, Patience patience, double from = 0);
  // Never steps back, and never reads below 0. A worker rank hears of rank 0's pauses late
  // (its own clock ran on meanwhile) and passed the start barrier a little apart from rank 0:
  // read as is, its time could step back, which made durations measured across a pause
  // negative and let a rank work "before" a failure due at time 0. It stands instead until rank
  // 0's time catches up. Called from one thread per rank.
  double now() const {
    const double shown =
        state_.standing ? state_.stands_at : MPI_Wtime() - start_ - state_.paused_seconds;
    latest_ = std::max(latest_, shown);
    return latest_;
  }

  // Rank 0: the time stands still from now until `run_on`, and that pause never counts.
  void stand_still();
  void run_on();
  const State& state() const { return state_; }

  // A worker rank: shows the time as rank 0's clock in `state` does.
  void follow(const State& state) { state_ = state; }

 private:
  // Rank 0 answers each other rank's probes in turn; each sets start_ from the quickest.
  void answer_probes(MPI_Comm comm, Patience patience) const;
  void probe_rank_0(MPI_Comm comm, Patience patience);

  double start_ = 0;
  mutable double latest_ = 0;  // the latest time `now` showed
  double standing_since_ = 0;  // MPI_Wtime when the current pause began
  State state_;
};

}  // namespace hetps::mpi
