// The heterogeneity model: how fast each worker computes at each instant, and what each link
// carries. Pure, seeded and deterministic: the same config and seed give the same cluster
// (speeds, noise, straggler episodes) whatever protocol runs on it.
#pragma once

#include <cstdint>
#include <vector>

#include "config/config.h"

namespace hetps::cluster {

// One straggler episode: `worker` runs `slowdown` times slower during [start, start+duration).
struct Episode {
  int worker = 0;
  double start = 0;
  double duration = 0;
  double slowdown = 1;
  double end() const { return start + duration; }
};

struct Link {
  double bytes_per_second = 0;
  double latency_seconds = 0;
};

class ClusterModel {
 public:
  // Throws std::invalid_argument (naming the `cluster.` field) on an invalid configuration,
  // and data-style errors naming the file for a bad `cluster.trace`.
  ClusterModel(const config::ClusterConfig& cluster, uint64_t seed);

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

  // Every episode (explicit and random) that starts before `horizon`, sorted by start.
  std::vector<Episode> episodes_until(double horizon) const;

 private:
  struct Impl;
  // Declared, not defined here: see cluster_model.cpp.
};

}  // namespace hetps::cluster
