// The simulator's network (DESIGN.md, "The simulator's clock"): every node has an uplink and a
// downlink, each a FIFO queue with its own bandwidth and latency. A message occupies the
// sender's uplink, then the receiver's downlink; the downlink starts receiving one latency
// after the uplink starts sending (pipelined) and is busy for its own transfer time, and the
// message cannot arrive before its last byte left the uplink plus the latency. So a busy
// server or a busy leader queues.
#pragma once

#include <span>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/cluster_model.h"

namespace hetps::engine {

class SimNetwork {
 public:
  // Nodes 0..workers-1 are workers (their own links), then `servers` server shards.
  SimNetwork(const cluster::ClusterModel& cluster, int servers);

  int server_node(int shard) const { return workers_ + shard; }

  // Sends `bytes` from node `from` to node `to`, handed to the uplink at `time`; returns the
  // time the last byte has arrived.
  double send(int from, int to, double bytes, double time);
  // One message between a worker and each server shard, shard s's carrying `shard_bytes[s]`
  // (its key range's share of a model, or of a compressed push's entries); returns the last
  // arrival.
  double send_to_servers(int worker, std::span<const double> shard_bytes, double time);
  double send_from_servers(int worker, std::span<const double> shard_bytes, double time);

  // When each link is next free, for checkpoints; bandwidths and latencies come from the
  // cluster model. restore_state, into a network of as many workers and shards, throws
  // checkpoint::CheckpointError naming a link count that differs, and then changes nothing.
  nlohmann::json save_state() const;
  void restore_state(const nlohmann::json& state);

 private:
  struct Queue {
    double bytes_per_second = 0;
    double free_at = 0;
  };
  int workers_;
  std::vector<Queue> up_;
  std::vector<Queue> down_;
  std::vector<double> latency_;
};

}  // namespace hetps::engine
