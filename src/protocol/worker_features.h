// Petrel's profile of the workers (spec/petrel.md, "Profiling"): per worker, a moving window
// of its last `window` samples of step (compute) time and push + pull round-trip time; its
// feature vector is the window means, each divided by the median worker's. Dividing by the
// median, not the fastest, keeps a typical worker at 1 whatever the cluster's absolute speed,
// so k-means and the agent see relative speeds only.
//
// A worker with no sample yet has no features: the caller runs its warm-up (BSP over everyone)
// until every live worker is `profiled`, or leaves such workers out.
#pragma once

#include <cstddef>
#include <deque>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/kmeans.h"

namespace hetps::protocol {

// The coordinates of a worker's feature vector.
constexpr size_t kStepTime = 0;
constexpr size_t kRoundTrip = 1;
constexpr size_t kFeatureCount = 2;

class WorkerFeatures {
 public:
  // Throws std::invalid_argument for workers < 1 or window < 1.
  WorkerFeatures(int workers, int window);

  // `worker` took `step_seconds` per step and `round_trip_seconds` for its last push + pull
  // (UpdateInfo::compute_seconds / steps and comm_seconds). Throws std::invalid_argument for an
  // unknown worker or a time that is negative or not finite.
  void observe(int worker, double step_seconds, double round_trip_seconds);

  // `worker` is dead: its samples no longer count.
  void forget(int worker);

  bool profiled(int worker) const;
  // The workers with no sample yet, ascending.
  std::vector<int> unprofiled() const;

  // The means of `worker`'s windows, in seconds (SaPus' performance model). Throws
  // std::invalid_argument for an unknown worker or one not profiled.
  double mean_step_seconds(int worker) const;
  double mean_round_trip_seconds(int worker) const;

  // The feature vectors of `workers`, in that order, normalized by the median among them. A
  // feature whose median is 0 (e.g. no network time on a network-free simulation) is divided by
  // its largest value instead, and stays 0 when that is 0 too. Throws std::invalid_argument
  // naming the first of `workers` that is unknown or not profiled.
  Points normalized(std::span<const int> workers) const;

  nlohmann::json save_state() const;
  // Throws std::invalid_argument when `state` holds another number of workers, or a worker's
  // windows differ in length or are longer than this one's window.
  void restore_state(const nlohmann::json& state);

 private:
  struct Window {  // the last samples, oldest first; both always the same length
    std::deque<double> step_seconds;
    std::deque<double> round_trip_seconds;
  };
  // `worker` as an index into windows_; throws std::invalid_argument for an unknown worker.
  size_t index(int worker) const;
  // `worker`'s windows; throws std::invalid_argument for an unknown worker or one not profiled.
  const Window& profiled_window(int worker) const;

  int window_;
  std::vector<Window> windows_;  // by worker
};

}  // namespace hetps::protocol
