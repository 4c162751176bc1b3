// The run's clock on the ranks of an MPI job: the waits before it starts, which no rank waits
// forever, and the pauses for rank 0's evaluations, which every rank leaves out alike.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/engine.h"
#include "every_rank.h"
#include "mpi/communicator.h"
#include "mpi/patient_wait.h"
#include "mpi/run_clock.h"
#include "mpi/session.h"

namespace hetps::testing {
namespace {

// The waits before training (the communicator's duplication, the host gather, the calibration's
// broadcast, the start barrier: each a non-blocking collective) give up after
// run.start_timeout_s, naming it and what they waited for. Shown on a barrier the test owns, so
// that once the late rank came every rank can still complete it: a collective abandoned inside the
// engine would be left for MPI to progress after its communicator is gone.
TEST(RunClockTest, AWaitBeforeTrainingGivesUpOnARankThatNeverComes) {
  const mpi::Communicator comm(kPatient);
  const bool late = mpi::world_rank() == mpi::world_size() - 1;
  MPI_Request barrier = MPI_REQUEST_NULL;
  if (!late) {
    MPI_Ibarrier(comm.get(), &barrier);
    try {
      mpi::wait_for(barrier, mpi::Patience(0.05, "run.start_timeout_s"),
                    [] { return std::string("every rank at the barrier"); });
      ADD_FAILURE() << "the barrier cannot pass without rank " << mpi::world_size() - 1;
    } catch (const engine::StallError& error) {
      EXPECT_STREQ(error.what(),
                   "stalled: waited longer than run.start_timeout_s = 0.05 for every rank at "
                   "the barrier");
    }
  }
  meet_everyone();  // the late rank comes only once the others gave up
  if (late) MPI_Ibarrier(comm.get(), &barrier);
  EXPECT_NO_THROW(mpi::wait_for(barrier, kPatient, [] { return std::string("the barrier"); }));
}

// A worker rank's clock shows what rank 0's says: the time it stood still at, exactly, until
// rank 0's runs on; then both leave out the same pause.
TEST(RunClockTest, AFollowerStandsStillWhereRankZerosClockStoodUntilItRunsOn) {
  mpi::RunClock server;
  mpi::RunClock worker;
  server.start(MPI_COMM_SELF, kPatient);
  worker.start(MPI_COMM_SELF, kPatient);
  server.stand_still();
  const double stood_at = server.now();
  worker.follow(server.state());
  EXPECT_EQ(worker.now(), stood_at);
  EXPECT_EQ(server.now(), stood_at);
  server.run_on();
  worker.follow(server.state());
  EXPECT_FALSE(worker.state().standing);
  EXPECT_EQ(worker.state().paused_seconds, server.state().paused_seconds);
  EXPECT_GE(server.now(), stood_at);  // the time runs on from where it stood
}

}  // namespace
}  // namespace hetps::testing
