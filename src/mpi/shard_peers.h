// Rank 0's view of the other server shards (engine::RemoteShards over MPI, cluster.servers >
// 1): every change to the global model becomes a kShardOrder to each shard rank, sent without
// waiting and in the order the change is made; a reply rank 0 sends a worker becomes a Reply
// order, so each shard sends the worker its slice of the same version.
//   A discard reaches the shards only for an update rank 0 took (`pushed`): a pushed update's
//   slices reach every shard, while one that was never pushed (its worker died first, or it
//   went to a leader) never does. The updates rank 0 took and holds are what a shard must hold
//   before it sends its state for a checkpoint.
#pragma once

#include <mpi.h>

#include <list>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/remote_shards.h"
#include "mpi/messages.h"
#include "mpi/rank_layout.h"
#include "mpi/wire/shard_orders.h"
#include "params/layout.h"

namespace hetps::mpi {

class ShardPeers : public engine::RemoteShards {
 public:
  // `slices`: every shard's keys, shard 0's (rank 0's own) first; `patience`: how long a fetch
  // waits for a shard's slice (run.stall_timeout_s).
  ShardPeers(MPI_Comm comm, const RankLayout& layout, std::vector<params::KeyRange> slices,
             double patience);
  // Orders still in flight are left alive: MPI may still read them, and the job is failing.
  ~ShardPeers() override;

  void apply(const protocol::ApplyOrder& order, int64_t samples_processed) override;
  void discard(int update_id) override;
  void set_override(const protocol::OptimizerOverride& settings) override;
  void fetch_model(server::ParameterServer& server) override;

  // Rank 0 took the header of update `update_id`.
  void pushed(int update_id) { pushed_.insert(update_id); }
  // Rank 0 sends `worker` the model of `version`.
  void reply(int worker, int64_t version);
  // Rank 0 holds back a reply of the current `version` for a checkpoint (ShardOrder::Keep).
  void keep(int64_t version);
  // The last order: once every worker said goodbye to them, the shard ranks return.
  void stop();

  // Checkpoints (rank_checkpoints.h): has every shard rank send its state, once it holds the
  // slices of the updates rank 0 holds, and returns them with those updates' ids. Throws
  // MessageError naming a rank whose answer is not a state, engine::StallError after
  // `patience` without one.
  nlohmann::json save_state();
  // A resumed run, before the start barrier: takes back the updates' ids and sends every shard
  // rank its state from `state` (as save_state returned it) and the time the run resumes at.
  // Throws checkpoint::CheckpointError naming what does not fit.
  void restore_state(const nlohmann::json& state, double time);

 private:
  struct OrderInFlight {
    std::vector<char> bytes;
    std::vector<MPI_Request> requests;
  };
  void post(const ShardOrder& order);
  void complete_sends();

  MPI_Comm comm_;
  const RankLayout& layout_;
  std::vector<params::KeyRange> slices_;
  double patience_;
  std::set<int> pushed_;
  std::list<OrderInFlight> in_flight_;  // a list: MPI reads each order where it was put
  std::vector<float> fetched_;          // a shard's slice, on its way into the model
  int64_t kept_version_ = -1;           // the last version a Keep order named
  bool stopped_ = false;
};

}  // namespace hetps::mpi
