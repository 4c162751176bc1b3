#include "engine/sim_network.h"

#include <algorithm>

namespace hetps::engine {

SimNetwork::SimNetwork(const cluster::ClusterModel& cluster, int servers)
    : workers_(cluster.workers()) {
  auto add_node = [&](const cluster::Link& link) {
    up_.push_back({link.bytes_per_second, 0});
    down_.push_back({link.bytes_per_second, 0});
    latency_.push_back(link.latency_seconds);
  };
  for (int w = 0; w < workers_; ++w) add_node(cluster.worker_link(w));
  for (int s = 0; s < servers; ++s) add_node(cluster.server_link());
}

double SimNetwork::send(int from, int to, double bytes, double time) {
  Queue& up = up_[static_cast<size_t>(from)];
  Queue& down = down_[static_cast<size_t>(to)];
  const double latency = latency_[static_cast<size_t>(from)] + latency_[static_cast<size_t>(to)];
  const double up_start = std::max(time, up.free_at);
  const double up_end = up_start + bytes / up.bytes_per_second;
  up.free_at = up_end;
  const double down_start = std::max(up_start + latency, down.free_at);
  // The downlink is busy only for its own transfer time: a slow sender must not hold a fast
  // receiver's link while its bytes trickle in.
  down.free_at = down_start + bytes / down.bytes_per_second;
  return std::max(down.free_at, up_end + latency);
}

double SimNetwork::send_to_servers(int worker, std::span<const double> shard_bytes, double time) {
  double arrival = time;
  for (size_t s = 0; s < shard_bytes.size(); ++s) {
    arrival =
        std::max(arrival, send(worker, server_node(static_cast<int>(s)), shard_bytes[s], time));
  }
  return arrival;
}

double SimNetwork::send_from_servers(int worker, std::span<const double> shard_bytes, double time) {
  double arrival = time;
  for (size_t s = 0; s < shard_bytes.size(); ++s) {
    arrival =
        std::max(arrival, send(server_node(static_cast<int>(s)), worker, shard_bytes[s], time));
  }
  return arrival;
}

}  // namespace hetps::engine
