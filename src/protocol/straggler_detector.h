// Transient-straggler detection (spec/sync-switch.md, "Online policies"): a worker is a
// transient straggler while its recent step time — the mean of its last `window` steps —
// exceeds `factor` × its own profiled step time, the median of the steps it took while not
// flagged (at most the last kProfileSteps of them). Comparing each worker with itself, not with
// the fastest, leaves a permanently slow worker of a heterogeneous cluster unflagged; leaving
// flagged steps out of the profile keeps a long episode from becoming the worker's normal.
// An episode is the time from a worker's flag to its clearing; the detector remembers the
// ended ones' mean length (Elastic's D).
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/moving_mean.h"

namespace hetps::protocol {

struct StragglerOptions {
  double factor = 1.5;
  int window = 5;
};

class StragglerDetector {
 public:
  static constexpr size_t kProfileSteps = 256;

  enum class Change { None, Flagged, Cleared };

  StragglerDetector(int workers, StragglerOptions options);

  int workers() const { return static_cast<int>(workers_.size()); }

  // One step of `worker` took `step_seconds`; `now` is the engine time. A worker is judged once
  // its profile holds at least `window` steps.
  Change observe(int worker, double step_seconds, double now);

  // `worker` is dead: it is no straggler, and its profile no longer counts.
  void forget(int worker);

  bool is_straggler(int worker) const { return at(worker).flagged; }
  int stragglers() const;
  // The worker's profiled step time (0 before its first step) and its recent one over that.
  double profiled_seconds(int worker) const;
  double slowdown(int worker) const;
  // The mean length of the episodes that have ended, or `fallback` before the first one.
  double mean_episode_seconds(double fallback) const;

  nlohmann::json save_state() const;
  void restore_state(const nlohmann::json& state);

 private:
  struct WorkerSteps {
    std::deque<double> profile;  // unflagged step times, oldest first
    MovingMean recent;           // the last `window` step times
    bool flagged = false;
    double flagged_at = 0;
  };
  const WorkerSteps& at(int worker) const { return workers_[static_cast<size_t>(worker)]; }
  WorkerSteps fresh_steps() const {
    WorkerSteps steps;
    steps.recent = MovingMean(static_cast<size_t>(options_.window));
    return steps;
  }

  StragglerOptions options_;
  std::vector<WorkerSteps> workers_;
  double ended_episodes_seconds_ = 0;
  int64_t ended_episodes_ = 0;
};

}  // namespace hetps::protocol
