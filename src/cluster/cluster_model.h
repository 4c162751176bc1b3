// The heterogeneity model: how fast each worker computes at each instant, and what each link
// carries. Pure, seeded and deterministic: the same config and seed give the same cluster
// (speeds, noise, straggler episodes) whatever protocol runs on it, and whatever order its
// questions come in.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "cluster/counter_random.h"
#include "cluster/episode.h"
#include "config/config.h"

namespace hetps::cluster {

class WorkerTimeline;

struct Link {
  double bytes_per_second = 0;
  double latency_seconds = 0;
};

// A worker's speed at time t is `cluster.speeds` (cycled over the workers) × its speed in
// `cluster.trace` ÷ the slowdowns of its episodes active at t (`cluster.stragglers` and the
// random ones of `cluster.random_stragglers`; overlapping slowdowns multiply). Every method is
// const and safe to call from several threads. For example
//   ClusterModel cluster(config.cluster, config.seed);
//   double end = cluster.compute_end(w, now, work_seconds * cluster.step_noise(w, step));
class ClusterModel {
 public:
  // Throws std::invalid_argument (naming the `cluster.` field) on an invalid configuration,
  // and data::DataError naming the file (and line) for a bad `cluster.trace`.
  ClusterModel(const config::ClusterConfig& cluster, uint64_t seed);
  ~ClusterModel();
  ClusterModel(ClusterModel&&) noexcept;
  ClusterModel& operator=(ClusterModel&&) noexcept;

  int workers() const;

  // Relative speed of `worker` at time `t`: base speed × trace speed / active slowdowns.
  double speed(int worker, double t) const;

  // When a step that needs `work` seconds at speed 1 and starts at `start` ends, integrating
  // the worker's speed over the step (an episode that begins mid-step slows the rest of it).
  double compute_end(int worker, double start, double work) const;

  // The multiplicative step-time noise of `worker`'s `step`-th step (lognormal, mean 1): a
  // function of (seed, worker, step) alone, so every protocol meets the same noise.
  double step_noise(int worker, int64_t step) const;

  const Link& worker_link(int worker) const;
  const Link& server_link() const;

  // Every episode (explicit and random) that starts before `horizon`, sorted by start, then by
  // worker. `horizon` must be finite when `cluster.random_stragglers.rate_per_min` > 0.
  std::vector<Episode> episodes_until(double horizon) const;

 private:
  // Throws std::out_of_range unless 0 <= worker < workers().
  size_t index_of(int worker) const;

  double noise_sigma_;
  std::vector<CounterStream> noise_;  // one stream per worker
  std::vector<Link> worker_links_;
  Link server_link_;
  std::vector<std::unique_ptr<WorkerTimeline>> timelines_;  // one per worker
};

}  // namespace hetps::cluster
