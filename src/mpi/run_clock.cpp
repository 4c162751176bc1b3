#include "mpi/run_clock.h"

#include <cmath>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "mpi/messages.h"
#include "mpi/patient_wait.h"
#include "mpi/wire/message_error.h"

namespace hetps::mpi {

namespace {

// How long a clock probe's answer is watched for without sleeping: a sleep would lengthen the
// round trip on one side only and skew the clock set from it. Past this, a patient wait takes
// over.
constexpr double kSpinSeconds = 1.0;
// Round trips each rank times against rank 0; the quickest sets its clock. One is enough on an
// idle host; the others stand in for those a scheduler slice interrupts.
constexpr int kProbes = 8;

std::string at_the_start() {
  return "every rank at the start of training (MPI_Ibarrier, once each rank has set up its model "
         "and data shard): a rank that never gets there holds up the others";
}

MPI_Status spin_for_message(MPI_Comm comm, int source, Patience patience,
                            const std::function<std::string()>& what) {
  const double give_up = MPI_Wtime() + kSpinSeconds;
  while (MPI_Wtime() < give_up) {
    if (const auto status = probe(comm, source, kClockProbe)) return *status;
    std::this_thread::yield();
  }
  return wait_for_message(comm, source, kClockProbe, patience, what);
}

}  // namespace

void RunClock::start(MPI_Comm comm, Patience patience, double from) {
  MPI_Request request;
  MPI_Ibarrier(comm, &request);
  wait_for(request, patience, at_the_start);
  start_ = MPI_Wtime() - from;
  latest_ = from;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    answer_probes(comm, patience);
  } else {
    probe_rank_0(comm, patience);
  }
}

void RunClock::answer_probes(MPI_Comm comm, Patience patience) const {
  int ranks = 0;
  MPI_Comm_size(comm, &ranks);
  for (int rank = 1; rank < ranks; ++rank) {
    for (int p = 0; p < kProbes; ++p) {
      spin_for_message(comm, rank, patience,
                       [rank] { return fmt::format("rank {}'s clock probe at the start", rank); });
      take_signal(rank, kClockProbe, comm);
      const double now = MPI_Wtime() - start_;
      MPI_Request answer = post_doubles({&now, 1}, rank, kClockProbe, comm);
      wait_for(answer);
    }
  }
}

void RunClock::probe_rank_0(MPI_Comm comm, Patience patience) {
  const auto what = [] { return std::string("rank 0's clock at the start"); };
  double quickest = std::numeric_limits<double>::infinity();
  for (int p = 0; p < kProbes; ++p) {
    const double sent = MPI_Wtime();
    MPI_Request probe_sent = post_signal(0, kClockProbe, comm);
    // The first answer comes once rank 0 has answered the ranks before this one.
    const MPI_Status status = p == 0 ? wait_for_message(comm, 0, kClockProbe, patience, what)
                                     : spin_for_message(comm, 0, patience, what);
    const double received = MPI_Wtime();
    wait_for(probe_sent);
    const std::vector<double> answer = take_doubles(status, comm);
    if (answer.size() != 1 || !std::isfinite(answer[0])) {
      throw MessageError(0, "an answer to a clock probe that is not one time");
    }
    if (received - sent < quickest) {
      quickest = received - sent;
      // Rank 0 read its clock about halfway through the round trip.
      start_ = (sent + received) / 2 - answer[0];
    }
  }
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
