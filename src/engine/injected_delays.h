// Heterogeneity made real for the threads engine: the cluster model's speeds, straggler
// episodes, traces and links (the same `cluster.*` fields the simulator reads) turned into
// wall-clock times a worker waits for. A worker of relative speed s pads every step to
// calibrated / s, where `calibrated` is one step measured alone at start, so its delay does not
// grow with the contention of many threads on few cores. Links are the simulator's FIFO queues,
// served in wall time. Workers whose speed is 1 throughout are never padded, and ideal links
// (`cluster.link_gbps = [inf]`, latencies 0, likewise for the server) delay nothing.
// Times are seconds since the run began. Safe to use from several threads.
#pragma once

#include <mutex>
#include <vector>

#include "cluster/cluster_model.h"
#include "config/config.h"
#include "engine/sim_network.h"

namespace hetps::engine {

class InjectedDelays {
 public:
  InjectedDelays(const config::ClusterConfig& cluster, uint64_t seed, double model_bytes,
                 std::vector<double> shard_fractions);

  // Whether any worker's steps are padded: only then is a step worth calibrating.
  bool pads_any_compute() const;
  // A speed-1 step's duration, measured alone; set it before the workers start.
  void set_calibrated_step(double seconds) { calibrated_step_ = seconds; }

  // When `steps` steps that began at `start` may end on `worker`: `start` for a worker that is
  // never padded, else the end its speed over time gives them.
  double compute_end(int worker, double start, int steps) const;
  // When a whole model (a pull reply, an update) sent at `sent` has arrived. Workers ask in
  // the order they get the lock, not quite in time order: on finite links a message may queue
  // behind one sent a little later (scheduling jitter); ideal links delay nothing, ever.
  double pull_arrival(int worker, double sent);
  double push_arrival(int worker, double sent);
  // Between workers: a member's update to its leader, a model a leader hands on.
  double worker_arrival(int from, int to, double sent);

 private:
  cluster::ClusterModel cluster_;
  std::vector<bool> padded_;  // per worker
  bool ideal_links_ = false;  // every link, the servers' too: inf bandwidth, no latency
  double model_bytes_;
  std::vector<double> shard_fractions_;
  double calibrated_step_ = 0;
  std::mutex network_mutex_;
  SimNetwork network_;
};

}  // namespace hetps::engine
