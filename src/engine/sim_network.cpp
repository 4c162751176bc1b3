#include "engine/sim_network.h"

#include <algorithm>

#include <fmt/format.h>

#include "checkpoint/restoring.h"

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

nlohmann::json SimNetwork::save_state() const {
  const auto free_at = [](const std::vector<Queue>& links) {
    std::vector<double> times;
    for (const Queue& link : links) times.push_back(link.free_at);
    return times;
  };
  return {{"uplinks_free_at", free_at(up_)}, {"downlinks_free_at", free_at(down_)}};
}

void SimNetwork::restore_state(const nlohmann::json& state) {
  checkpoint::restoring("the simulator's network", [&] {
    const auto read = [&](const char* field) {
      auto times = state.at(field).get<std::vector<double>>();
      if (times.size() != up_.size()) {
        throw checkpoint::CheckpointError(fmt::format(
            "{}: holds {} links, expected {} ({} workers and {} server shards)", field,
            times.size(), up_.size(), workers_, up_.size() - static_cast<size_t>(workers_)));
      }
      return times;
    };
    const std::vector<double> up = read("uplinks_free_at");
    const std::vector<double> down = read("downlinks_free_at");
    for (size_t node = 0; node < up.size(); ++node) {
      up_[node].free_at = up[node];
      down_[node].free_at = down[node];
    }
  });
}

}  // namespace hetps::engine
