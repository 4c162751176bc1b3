// A worker rank's end of the messages, on its own: what it does where no stall inspector
// watches it.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "engine/engine.h"
#include "every_rank.h"
#include "mpi/communicator.h"
#include "mpi/messages.h"
#include "mpi/patient_wait.h"
#include "mpi/rank_layout.h"
#include "mpi/run_clock.h"
#include "mpi/session.h"
#include "mpi/wire/message_error.h"
#include "mpi/worker_endpoint.h"
#include "protocol/protocol.h"

namespace hetps::testing {
namespace {

// The job's ranks as one server and the rest workers, on communicators of their own.
class WorkerEndpointTest : public ::testing::Test {
 protected:
  static config::ClusterConfig one_server() {
    config::ClusterConfig cluster;
    cluster.workers = mpi::world_size() - cluster.servers;
    return cluster;
  }

  const mpi::Communicator comm_{kPatient};
  const mpi::Communicator slice_comm_{kPatient};
  const mpi::RankLayout layout_{one_server(), comm_.get(), kPatient};
};

// The end of a run waits for every other worker's kEndOfRun, and only there the server's stall
// inspector no longer watches. A worker rank that left before the run (its start barrier gave
// up while the others' passed) never sends one: the worker that ends the run names it and
// gives up after run.stall_timeout_s instead of waiting for good.
TEST_F(WorkerEndpointTest, TheEndOfARunGivesUpOnWorkersThatNeverEndIt) {
  const mpi::RankLayout& layout = layout_;
  const int ending_rank = layout.worker_rank(0);
  if (layout.rank() == layout.server_rank()) {
    MPI_Request stop = mpi::post_signal(ending_rank, mpi::kStop, comm_.get());
    mpi::wait_for(stop);
  } else if (layout.rank() == ending_rank) {
    mpi::RunClock clock;
    mpi::WorkerEndpoint endpoint(comm_.get(), slice_comm_.get(), layout, {{0, 10}}, clock, kPatient,
                                 kPatient);
    std::vector<int> absent;
    for (int worker = 1; worker < layout.workers(); ++worker) absent.push_back(worker);
    try {
      endpoint.say_goodbye(0.05, {});
      ADD_FAILURE() << "the run cannot end without workers 1 to " << layout.workers() - 1;
    } catch (const engine::StallError& error) {
      EXPECT_EQ(error.what(), fmt::format("stalled: waited longer than run.stall_timeout_s = 0.05 "
                                          "for the end of the run on {}",
                                          layout.describe_workers(absent)));
    }
  }
  meet_everyone();  // the absent workers take their ends only once worker 0 gave up
  if (!layout.is_server() && layout.rank() != ending_rank) {
    mpi::take_signal(ending_rank, mpi::kEndOfRun, comm_.get());
  }
}

// A reply header with values no server sends (here more members than the run has other
// workers) ends the worker's run naming the server's rank, before any of it is used.
TEST_F(WorkerEndpointTest, AReplyNoServerSendsIsRefusedNamingTheServer) {
  const mpi::RankLayout& layout = layout_;
  const int worker_rank = layout.worker_rank(0);
  mpi::ReplyHeader header;
  header.members = 99;
  if (layout.rank() == layout.server_rank()) {
    MPI_Request reply = mpi::post_header(header, worker_rank, mpi::kReplyHeader, comm_.get());
    mpi::wait_for(reply);
  } else if (layout.rank() == worker_rank) {
    mpi::RunClock clock;
    mpi::WorkerEndpoint endpoint(comm_.get(), slice_comm_.get(), layout, {{0, 10}}, clock, kPatient,
                                 kPatient);
    try {
      endpoint.receive(clock.now() + kPatient);
      ADD_FAILURE() << "a reply with 99 members was taken";
    } catch (const mpi::MessageError& error) {
      EXPECT_EQ(error.sender(), layout.server_rank());
      EXPECT_EQ(error.what(),
                fmt::format("rank 0 sent a reply header with members = 99, expected 0 to {} "
                            "(the other workers)",
                            layout.workers() - 1));
    }
  }
  meet_everyone();
}

// Rank 0 answers a waiting worker, or its stall inspector ends the run, within
// run.stall_timeout_s: a worker that hears nothing from it for twice that takes it for hung
// (a stopped process, a frozen host) and ends the job naming it, instead of waiting for good.
TEST_F(WorkerEndpointTest, AWorkerTakesASilentServerForHung) {
  const mpi::RankLayout& layout = layout_;
  if (layout.rank() == layout.worker_rank(0)) {
    mpi::RunClock clock;
    mpi::WorkerEndpoint endpoint(comm_.get(), slice_comm_.get(), layout, {{0, 10}}, clock, 0.05,
                                 0.05);
    try {
      endpoint.receive(clock.now() + kPatient);
      ADD_FAILURE() << "a reply came from a server that sent none";
    } catch (const engine::ServerSilent& error) {
      EXPECT_EQ(error.what(),
                fmt::format("stalled: waited longer than twice run.stall_timeout_s = 0.05 for a "
                            "reply, hearing nothing from {}: a run held up by a worker would have "
                            "ended after run.stall_timeout_s, so the server is taken for hung",
                            layout.describe_server()));
    }
  }
  meet_everyone();
}

// A stopped rank 0 takes no part of an update too large to be sent before it is received: the
// worker gives up on it after twice run.stall_timeout_s, as on a reply, instead of waiting for
// good (nobody else would end that wait).
TEST_F(WorkerEndpointTest, AWorkerTakesAServerThatTakesNoUpdateForHung) {
  const mpi::RankLayout& layout = layout_;
  const int worker_rank = layout.worker_rank(0);
  // Far above any eager limit: the send waits for the receive.
  constexpr size_t kFloats = size_t{1} << 20;
  if (layout.rank() == worker_rank) {
    mpi::RunClock clock;
    mpi::WorkerEndpoint endpoint(comm_.get(), slice_comm_.get(), layout, {{0, kFloats}}, clock,
                                 0.05, 0.05);
    const std::vector<float> update(kFloats, 1.0F);
    try {
      endpoint.push(protocol::UpdateInfo{}, update, nullptr);
      ADD_FAILURE() << "a push to a server that received none ended";
    } catch (const engine::ServerSilent& error) {
      EXPECT_EQ(error.what(),
                fmt::format("stalled: waited longer than twice run.stall_timeout_s = 0.05 for an "
                            "update to be taken, hearing nothing from {}: a run held up by a "
                            "worker would have ended after run.stall_timeout_s, so the server is "
                            "taken for hung",
                            layout.describe_server()));
    }
    MPI_Request gave_up = mpi::post_signal(layout.server_rank(), mpi::kStop, comm_.get());
    mpi::wait_for(gave_up);
    // `update` stays until rank 0 has taken it.
    mpi::take_signal(layout.server_rank(), mpi::kStop, comm_.get());
  } else if (layout.rank() == layout.server_rank()) {
    // Only once the worker gave up: the update it left in flight is taken, so that no message
    // of this test is left to the next.
    mpi::take_signal(worker_rank, mpi::kStop, comm_.get());
    mpi::take_message(worker_rank, mpi::kUpdateHeader, comm_.get());
    std::vector<float> update(kFloats);
    MPI_Recv(update.data(), static_cast<int>(kFloats), MPI_FLOAT, worker_rank, mpi::kUpdatePayload,
             comm_.get(), MPI_STATUS_IGNORE);
    MPI_Request taken = mpi::post_signal(worker_rank, mpi::kStop, comm_.get());
    mpi::wait_for(taken);
  }
  meet_everyone();
}

// While rank 0 evaluates, its clock stands still, and so does the worker's patience: a pause
// longer than twice the stall timeout in real time is not taken for a hang.
TEST_F(WorkerEndpointTest, AServerThatEvaluatesIsNotTakenForHung) {
  const mpi::RankLayout& layout = layout_;
  const int worker_rank = layout.worker_rank(0);
  constexpr double kStallTimeout = 0.05;
  if (layout.rank() == layout.server_rank()) {
    mpi::RunClock clock;
    clock.stand_still();
    const mpi::RunClock::State standing = clock.state();
    MPI_Request pause = mpi::post_header(standing, worker_rank, mpi::kClock, comm_.get());
    mpi::wait_for(pause);
    std::this_thread::sleep_for(std::chrono::duration<double>(6 * kStallTimeout));
    MPI_Request stop = mpi::post_signal(worker_rank, mpi::kStop, comm_.get());
    mpi::wait_for(stop);
  } else if (layout.rank() == worker_rank) {
    mpi::RunClock clock;
    mpi::WorkerEndpoint endpoint(comm_.get(), slice_comm_.get(), layout, {{0, 10}}, clock,
                                 kStallTimeout, kStallTimeout);
    EXPECT_EQ(endpoint.receive(clock.now() + kPatient), std::nullopt);
    EXPECT_TRUE(endpoint.run_over());
  }
  meet_everyone();
}

// With several server shards a reply is rank 0's header and slice, then each shard rank's
// slice. A shard rank whose slice does not come within run.stall_warning_s is told to rank 0,
// whose stall inspector waits for this worker's update and would otherwise blame the worker.
TEST(WorkerEndpointShardsTest, AWorkerTellsRankZeroWhichShardItWaitsFor) {
  config::ClusterConfig cluster;
  cluster.servers = 2;
  cluster.workers = mpi::world_size() - cluster.servers;
  const mpi::Communicator comm{kPatient};
  const mpi::Communicator slice_comm{kPatient};
  const mpi::RankLayout layout{cluster, comm.get(), kPatient};
  const int worker_rank = layout.worker_rank(0);
  const std::vector<params::KeyRange> slices = {{0, 4}, {4, 10}};
  if (layout.rank() == layout.server_rank()) {
    mpi::ReplyHeader header;
    header.lr = 0.1;
    const std::vector<float> own(4, 1.0F);
    MPI_Request reply = mpi::post_header(header, worker_rank, mpi::kReplyHeader, comm.get());
    MPI_Request slice = mpi::post_floats(own, worker_rank, mpi::kReplyModel, comm.get());
    mpi::wait_for(reply);
    mpi::wait_for(slice);
    try {
      const MPI_Status notice = mpi::wait_for_message(comm.get(), worker_rank, mpi::kAwaitingShard,
                                                      5.0, [] { return "the worker's notice"; });
      EXPECT_EQ(mpi::take_ids(notice, comm.get()), std::vector<int>{1});
    } catch (const engine::StallError& error) {
      ADD_FAILURE() << "the worker did not say which shard it waits for: " << error.what();
    }
    // Only now does shard 1 send its slice: the worker waited for it without giving up.
    MPI_Request go_on = mpi::post_signal(layout.shard_rank(1), mpi::kStop, comm.get());
    mpi::wait_for(go_on);
    // The notice is repeated every run.stall_warning_s while the worker waits, and ends with one
    // that says the shard answered after all (0).
    try {
      for (;;) {
        const MPI_Status notice =
            mpi::wait_for_message(comm.get(), worker_rank, mpi::kAwaitingShard, 5.0,
                                  [] { return "the worker's notice that the shard answered"; });
        const std::vector<int> shard = mpi::take_ids(notice, comm.get());
        if (shard == std::vector<int>{0}) break;
        EXPECT_EQ(shard, std::vector<int>{1});
      }
    } catch (const engine::StallError& error) {
      ADD_FAILURE() << error.what();
    }
  } else if (layout.rank() == layout.shard_rank(1)) {
    mpi::take_signal(layout.server_rank(), mpi::kStop, comm.get());
    const std::vector<float> own(6, 2.0F);
    MPI_Request slice = mpi::post_floats(own, worker_rank, mpi::kReplyModel, slice_comm.get());
    mpi::wait_for(slice);
  } else if (layout.rank() == worker_rank) {
    mpi::RunClock clock;
    mpi::WorkerEndpoint endpoint(comm.get(), slice_comm.get(), layout, slices, clock, 0.05,
                                 kPatient);
    const std::optional<engine::PulledModel> reply = endpoint.receive(clock.now() + kPatient);
    ASSERT_TRUE(reply.has_value());
    const std::vector<float> model(reply->model.begin(), reply->model.end());
    EXPECT_EQ(model, (std::vector<float>{1, 1, 1, 1, 2, 2, 2, 2, 2, 2}));
  }
  meet_everyone();
}

}  // namespace
}  // namespace hetps::testing
