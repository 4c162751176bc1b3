#include "engine/injected_delays.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "checkpoint/restoring.h"
#include "cluster/cycled.h"
#include "cluster/trace.h"
#include "engine/sparse_push.h"

namespace hetps::engine {
namespace {

double base_speed(const config::ClusterConfig& cluster, int worker) {
  return cluster::cycled(cluster.speeds, worker);
}

bool speed_varies(const config::ClusterConfig& cluster, int worker) {
  const double base = base_speed(cluster, worker);
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
    if (!ideal(cluster::cycled(cluster.link_gbps, w),
               cluster::cycled(cluster.link_latency_ms, w))) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<std::string> speeds_above_one_warning(const config::ClusterConfig& cluster) {
  // Episodes only slow a worker down: its fastest is its base speed × its trace's fastest.
  const std::vector<cluster::PiecewiseConstant> traces =
      cluster.trace.empty()
          ? std::vector<cluster::PiecewiseConstant>(static_cast<size_t>(cluster.workers))
          : cluster::read_trace(cluster.trace, cluster.workers);
  const auto trace_top = [&](int worker) {
    return traces[static_cast<size_t>(worker)].largest_from(0.0);
  };
  const auto top_speed = [&](int worker) {
    return base_speed(cluster, worker) * trace_top(worker);
  };
  int fastest = 0;
  for (int w = 1; w < cluster.workers; ++w) {
    if (top_speed(w) > top_speed(fastest)) fastest = w;
  }
  const double top = top_speed(fastest);
  if (top <= 1.0) return std::nullopt;
  const std::string source =
      trace_top(fastest) == 1.0
          ? fmt::format("cluster.speeds gives worker {} speed {}", fastest, top)
          : fmt::format("cluster.speeds ({}) x cluster.trace ({}) gives worker {} speed {}",
                        base_speed(cluster, fastest), trace_top(fastest), fastest, top);
  return fmt::format(
      "{}: the real engines pad each step to the speed-1 step measured alone divided by the "
      "worker's speed, which cannot make a step faster, so workers above speed 1 run at 1. "
      "Divide cluster.speeds by {} to keep their ratios",
      source, top);
}

InjectedDelays::InjectedDelays(const config::ClusterConfig& cluster, uint64_t seed,
                               std::vector<params::KeyRange> shards)
    : cluster_(cluster, seed),
      shards_(std::move(shards)),
      network_(cluster_, static_cast<int>(shards_.size())) {
  for (int w = 0; w < cluster.workers; ++w) padded_.push_back(speed_varies(cluster, w));
  ideal_links_ = all_links_ideal(cluster);
  if (shards_.empty()) return;
  // As the simulator computes them (ParameterServer::shard_fractions), to the bit.
  const auto model_floats = static_cast<double>(shards_.back().end);
  model_bytes_ = model_floats * sizeof(float);
  for (const params::KeyRange& keys : shards_) {
    model_shard_bytes_.push_back(model_bytes_ * (static_cast<double>(keys.size()) / model_floats));
  }
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
  return network_.send_from_servers(worker, model_shard_bytes_, sent);
}

double InjectedDelays::push_arrival(int worker, double sent, const worker::SparseDelta* sparse) {
  if (ideal_links_) return sent;
  std::vector<double> compressed;
  if (sparse != nullptr) compressed = shard_bytes(*sparse, shards_);
  std::lock_guard lock(network_mutex_);
  return network_.send_to_servers(worker, sparse != nullptr ? compressed : model_shard_bytes_,
                                  sent);
}

double InjectedDelays::worker_arrival(int from, int to, double sent) {
  if (ideal_links_) return sent;
  std::lock_guard lock(network_mutex_);
  return network_.send(from, to, model_bytes_, sent);
}

nlohmann::json InjectedDelays::save_state() {
  std::lock_guard lock(network_mutex_);
  return {{"calibrated_step", calibrated_step_}, {"network", network_.save_state()}};
}

void InjectedDelays::restore_state(const nlohmann::json& state) {
  checkpoint::restoring("the injected delays", [&] {
    const auto calibrated_step = state.at("calibrated_step").get<double>();
    std::lock_guard lock(network_mutex_);
    network_.restore_state(state.at("network"));
    calibrated_step_ = calibrated_step;
  });
}

}  // namespace hetps::engine
