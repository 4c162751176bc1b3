// Heterogeneity made real for the threads and mpi engines: the cluster model's speeds, straggler
// episodes, traces and links (the same `cluster.*` fields the simulator reads) turned into
// wall-clock times a worker waits for. A worker of relative speed s pads every step to
// calibrated / s, where `calibrated` is one step measured alone at start, so its delay does not
// grow with the contention of many threads on few cores. Links are the simulator's FIFO queues,
// served in wall time. Workers whose speed is 1 throughout are never padded, and ideal links
// (`cluster.link_gbps = [inf]`, latencies 0, likewise for the server) delay nothing.
// Times are seconds since the run began. Safe to use from several threads.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/cluster_model.h"
#include "config/config.h"
#include "engine/sim_network.h"
#include "params/layout.h"
#include "worker/top_k.h"

namespace hetps::engine {

// A warning when a worker's speed is ever above 1 (its `cluster.speeds` entry, times its
// `cluster.trace` speed): padding can only slow a step down, so such a worker runs at the
// machine's speed (1) on the real engines, not at its own. Nothing when every speed stays at
// most 1. The trace is read again: give a config whose cluster was already built.
std::optional<std::string> speeds_above_one_warning(const config::ClusterConfig& cluster);

class InjectedDelays {
 public:
  // `shards`: the server shards' key ranges, which together cover the model; empty where no
  // link is modelled (the mpi engine's links are real).
  InjectedDelays(const config::ClusterConfig& cluster, uint64_t seed,
                 std::vector<params::KeyRange> shards);

  const cluster::ClusterModel& cluster() const { return cluster_; }
  // Whether any worker's steps are padded: only then is a step worth calibrating.
  bool pads_any_compute() const;
  // A speed-1 step's duration, measured alone; set it before the workers start.
  void set_calibrated_step(double seconds) { calibrated_step_ = seconds; }

  // When `steps` steps that began at `start` may end on `worker`: `start` for a worker that is
  // never padded, else the end its speed over time gives them.
  double compute_end(int worker, double start, int steps) const;
  // When a pull reply or a push sent at `sent` has arrived: a whole model, or the entries a
  // compressed push carries (`sparse`, null for a dense push; engine/sparse_push.h). Workers
  // ask in the order they get the lock, not quite in time order: on finite links a message may
  // queue behind one sent a little later (scheduling jitter); ideal links delay nothing, ever.
  double pull_arrival(int worker, double sent);
  double push_arrival(int worker, double sent, const worker::SparseDelta* sparse);
  // Between workers: a member's update to its leader, a model a leader hands on.
  double worker_arrival(int from, int to, double sent);

  // The calibrated step and when each link is next free, for checkpoints (a resumed run pads to
  // the step its first start measured). restore_state, into delays built from the same config,
  // throws checkpoint::CheckpointError naming what does not fit.
  nlohmann::json save_state();
  void restore_state(const nlohmann::json& state);

 private:
  cluster::ClusterModel cluster_;
  std::vector<bool> padded_;  // per worker
  bool ideal_links_ = false;  // every link, the servers' too: inf bandwidth, no latency
  std::vector<params::KeyRange> shards_;
  double model_bytes_ = 0;
  std::vector<double> model_shard_bytes_;  // each shard's bytes of the whole model
  double calibrated_step_ = 0;
  std::mutex network_mutex_;
  SimNetwork network_;
};

}  // namespace hetps::engine
