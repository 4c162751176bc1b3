#include "cluster/cluster_model.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "cluster/cycled.h"
#include "cluster/trace.h"
#include "cluster/validate.h"
#include "cluster/worker_timeline.h"

namespace hetps::cluster {
namespace {

Link link(double gbps, double latency_ms) { return Link{gbps * 1e9 / 8, latency_ms / 1e3}; }

std::vector<Episode> explicit_episodes_of(const config::ClusterConfig& cluster, int worker) {
  std::vector<Episode> episodes;
  for (const config::StragglerEpisode& episode : cluster.stragglers) {
    if (episode.worker == worker) {
      episodes.push_back(Episode{worker, episode.start, episode.duration, episode.slowdown});
    }
  }
  return episodes;
}

}  // namespace

ClusterModel::ClusterModel(const config::ClusterConfig& cluster, uint64_t seed)
    : noise_sigma_(cluster.compute_noise) {
  validate(cluster);
  server_link_ = link(cluster.server_gbps, cluster.server_latency_ms);
  std::vector<PiecewiseConstant> traces =
      cluster.trace.empty() ? std::vector<PiecewiseConstant>(static_cast<size_t>(cluster.workers))
                            : read_trace(cluster.trace, cluster.workers);
  for (int w = 0; w < cluster.workers; ++w) {
    noise_.emplace_back(seed, RandomSource::step_noise, static_cast<uint64_t>(w));
    worker_links_.push_back(link(cycled(cluster.link_gbps, w), cycled(cluster.link_latency_ms, w)));
    std::optional<RandomEpisodes> random;
    if (cluster.random_stragglers.rate_per_min > 0)
      random.emplace(cluster.random_stragglers, seed, w);
    timelines_.push_back(std::make_unique<WorkerTimeline>(
        cycled(cluster.speeds, w), std::move(traces[static_cast<size_t>(w)]),
        explicit_episodes_of(cluster, w), std::move(random)));
  }
}

ClusterModel::~ClusterModel() = default;
ClusterModel::ClusterModel(ClusterModel&&) noexcept = default;
ClusterModel& ClusterModel::operator=(ClusterModel&&) noexcept = default;

int ClusterModel::workers() const { return static_cast<int>(timelines_.size()); }

size_t ClusterModel::index_of(int worker) const {
  if (worker < 0 || worker >= workers()) {
    throw std::out_of_range(
        fmt::format("worker {} is outside [0, {}) (cluster.workers)", worker, workers()));
  }
  return static_cast<size_t>(worker);
}

double ClusterModel::speed(int worker, double t) const {
  return timelines_[index_of(worker)]->speed(t);
}

double ClusterModel::compute_end(int worker, double start, double work) const {
  return timelines_[index_of(worker)]->compute_end(start, work);
}

double ClusterModel::step_noise(int worker, int64_t step) const {
  // exp(σz − σ²/2) has mean exactly 1 for standard normal z.
  double z = noise_[index_of(worker)].normal(static_cast<uint64_t>(step));
  return std::exp(noise_sigma_ * z - noise_sigma_ * noise_sigma_ / 2);
}

const Link& ClusterModel::worker_link(int worker) const { return worker_links_[index_of(worker)]; }

const Link& ClusterModel::server_link() const { return server_link_; }

std::vector<Episode> ClusterModel::episodes_until(double horizon) const {
  std::vector<Episode> episodes;
  for (const auto& timeline : timelines_) {
    std::vector<Episode> own = timeline->episodes_before(horizon);
    episodes.insert(episodes.end(), own.begin(), own.end());
  }
  std::stable_sort(episodes.begin(), episodes.end(), [](const Episode& a, const Episode& b) {
    return a.start < b.start || (a.start == b.start && a.worker < b.worker);
  });
  return episodes;
}

}  // namespace hetps::cluster
