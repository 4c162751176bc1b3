// The server rank's side of the run loop (engine::ServerLoop::Engine over MPI).
//   A pull reply is a ReplyHeader and the model, both sent without waiting (MPI_Isend) from
//   where they are: the model straight from its immutable snapshot, which the reply keeps alive
//   until MPI is done with it. A leader's reply also carries its members, and each reply it
//   hands on follows as a kRelay (the leader sends the model on itself). A dead leader's rank
//   hands back the members' updates that still reach it (kOrphanedUpdate).
//   An update's header is taken first; its payload is then received straight into the
//   update pool's buffer for its id, with no copy, or for a top-k compressed update its kept
//   entries are received and written there, with zeros elsewhere (sparse_wire.h). Every
//   message is checked before it is used (wire/headers.h, wire/message_checks.h): one of
//   another length, from a rank that does not send it, or with values no worker sends (an
//   update it is not owed, a worker id outside the run) ends the run with a MessageError
//   naming the sender, and never reaches the model.
//   An evaluation does not count in the engine's time, as on the threads engine: the server's
//   clock stands still meanwhile and tells the workers' clocks to do the same (run_clock.h). So
//   does a checkpoint, which gathers the resting workers' states (rank_checkpoints.h).
//   The workers are not held (on a cluster they do not share the server's cores), but their
//   injected delays and failure times wait for the clock: each computes at most the step it
//   is in, then waits.
//   With several server shards (ShardPeers), rank 0 sends and takes its own shard's slice of
//   each model and update; the shard ranks carry the rest.
//   The end of a run (`stop_workers`): kStop to every worker rank, its last message; then
//   whatever the workers still send is taken (and dropped) until each said kGoodbye, so that
//   every send on either side completes.
#pragma once

#include <mpi.h>

#include <list>
#include <map>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/server_loop.h"
#include "mpi/messages.h"
#include "mpi/rank_layout.h"
#include "mpi/run_clock.h"
#include "mpi/shard_peers.h"
#include "mpi/sparse_wire.h"
#include "params/layout.h"

namespace hetps::mpi {

class ServerEndpoint : public engine::ServerLoop::Engine {
 public:
  // `own_keys`: shard 0's, the whole model when there is one shard, of `model_floats`;
  // `peers`: the other shards, or null.
  ServerEndpoint(MPI_Comm comm, const RankLayout& layout, params::KeyRange own_keys,
                 size_t model_floats, ShardPeers* peers, RunClock& clock);
  // Replies a worker never took (it did not stop in time) are left alive: MPI may still read
  // them, and the job is failing anyway.
  ~ServerEndpoint() override;

  void send(engine::ServerLoop::Reply reply) override;
  void serve_one(double deadline, engine::ServerLoop& server) override;
  void evaluate(engine::ServerState& state, double time) override;
  void tell_member_gone(int leader, int member) override;
  std::vector<int> close_leader(int leader) override;
  void keep_for_later(int64_t version) override {
    if (peers_ != nullptr) peers_->keep(version);
  }

  // Runs `during` with the clock standing still on every rank, as for an evaluation.
  template <typename During>
  void with_clock_standing(During during) {
    clock_.stand_still();
    tell_workers_the_clock();
    try {
      during();
    } catch (...) {
      // The run ends with the error: its clock must run again, or the deadlines of the stop
      // that follows would never come.
      clock_.run_on();
      throw;
    }
    clock_.run_on();
    tell_workers_the_clock();
  }

  // Checkpoints (rank_checkpoints.h): every worker rank's state, asked for (kStateRequest) and
  // taken (kWorkerState) while the workers rest, by worker id. Throws MessageError naming a
  // rank whose answer is not a state, engine::StallError after `patience` seconds without one.
  nlohmann::json gather_worker_states(double patience);
  // A resumed run, before the start barrier: sends each worker rank its state from
  // `worker_states` (as gather_worker_states returned them) and the time the run resumes at.
  void send_resume_states(const nlohmann::json& worker_states, double time);

  // Ends the run on every worker rank (once; later calls do nothing). Returns the workers that
  // did not say goodbye within `patience` seconds.
  std::vector<int> stop_workers(double patience);
  // The activity timelines the workers sent at the end (kTimeline), by worker id.
  const std::map<int, std::vector<double>>& worker_timelines() const { return timelines_; }

 private:
  // A message in flight and what MPI reads it from, kept where it is until the send is done.
  struct SendInFlight {
    ReplyHeader header;
    RelayEntry relay;
    RunClock::State clock;
    engine::ModelSnapshot model;
    std::vector<int> ids;
    std::vector<double> shares;
    std::vector<MPI_Request> requests;
  };
  void complete_sends();
  // Sends every worker rank the clock's state (kClock), before and after an evaluation.
  void tell_workers_the_clock();
  void take(const MPI_Status& message, engine::ServerLoop& server);
  // The update header `rank` sent, and a leader's members and step times after it, checked.
  protocol::UpdateInfo take_update_info(int rank, const UpdateHeader& header);
  // After the end: takes one message and drops it; returns whether it was a goodbye.
  bool drop(const MPI_Status& message);

  // The part of a whole-model buffer that travels between rank 0 and the workers.
  template <typename T>
  std::span<T> own_part(std::span<T> whole) const {
    return whole.subspan(own_keys_.begin, own_keys_.size());
  }

  MPI_Comm comm_;
  const RankLayout& layout_;
  params::KeyRange own_keys_;
  MessageBounds bounds_;
  ShardPeers* peers_;
  RunClock& clock_;
  std::list<SendInFlight> in_flight_;  // a list: MPI reads each header where it was put
  std::vector<float> dropped_;         // where updates sent after the end land
  SparseSliceReceiver sparse_;         // compressed updates' entries, on their way in
  bool stopped_ = false;
  std::map<int, std::vector<double>> timelines_;
};

}  // namespace hetps::mpi
