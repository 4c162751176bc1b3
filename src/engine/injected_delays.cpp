#include "engine/injected_delays.h"

#include <algorithm>
#include <cmath>

namespace hetps::engine {
namespace {

bool speed_varies(const config::ClusterConfig& cluster, int worker) {
  const double base = cluster.speeds[static_cast<size_t>(worker) % cluster.speeds.size()];
  const bool has_episode = std::any_of(
      cluster.stragglers.begin(), cluster.stragglers.end(),
      [&](const config::StragglerEpisode& episode) { return episode.worker == worker; });
  return base != 1.0 || has_episode || !cluster.trace.empty() ||
         cluster.random_stragglers.rate_per_min > 0;
}

bool ideal(double gbps, double latency_ms) { return std::isinf(gbps) && latency_ms == 0; }

bool all_links_ideal(const config::ClusterConfig& cluster) {
  if (!ideal(cluster.server_gbps, cluster.server_latency_ms)) return false;
  for (int w = 0; w < cluster.workers; ++w) {
    const auto cycled = [w](const std::vector<double>& values) {
      return values[static_cast<size_t>(w) % values.size()];
    };
    if (!ideal(cycled(cluster.link_gbps), cycled(cluster.link_latency_ms))) return false;
  }
  return true;
}

}  // namespace

InjectedDelays::InjectedDelays(const config::ClusterConfig& cluster, uint64_t seed,
                               double model_bytes, std::vector<double> shard_fractions)
    : cluster_(cluster, seed),
      model_bytes_(model_bytes),
      shard_fractions_(std::move(shard_fractions)),
      network_(cluster_, static_cast<int>(shard_fractions_.size())) {
  for (int w = 0; w < cluster.workers; ++w) padded_.push_back(speed_varies(cluster, w));
  ideal_links_ = all_links_ideal(cluster);
}

bool InjectedDelays::pads_any_compute() const {
  return std::find(padded_.begin(), padded_.end(), true) != padded_.end();
}

double InjectedDelays::compute_end(int worker, double start, int steps) const {
  if (!padded_[static_cast<size_t>(worker)]) return start;
  return cluster_.compute_end(worker, start, calibrated_step_ * steps);
}

double InjectedDelays::pull_arrival(int worker, double sent) {
  if (ideal_links_) return sent;
  std::lock_guard lock(network_mutex_);
  return network_.send_from_servers(worker, model_bytes_, shard_fractions_, sent);
}

double InjectedDelays::push_arrival(int worker, double sent) {
  if (ideal_links_) return sent;
  std::lock_guard lock(network_mutex_);
  return network_.send_to_servers(worker, model_bytes_, shard_fractions_, sent);
}

double InjectedDelays::worker_arrival(int from, int to, double sent) {
  if (ideal_links_) return sent;
  std::lock_guard lock(network_mutex_);
  return network_.send(from, to, model_bytes_, sent);
}

}  // namespace hetps::engine
