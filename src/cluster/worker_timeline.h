// The speed of one worker over time: its base speed, times its trace speed, divided by the
// slowdowns of the straggler episodes active at that instant.
#pragma once

#include <mutex>
#include <optional>
#include <vector>

#include "cluster/episode.h"
#include "cluster/piecewise_constant.h"
#include "cluster/random_episodes.h"

namespace hetps::cluster {

// Random episodes are generated lazily, in order of start, as far as a question needs and no
// further; they are kept, so an answer never depends on which questions came before it. The
// cache sits behind a mutex: every method is safe to call from several threads.
class WorkerTimeline {
 public:
  // `explicit_episodes` are this worker's configured episodes, in any order; `random` is absent
  // when the worker has no random episodes.
  WorkerTimeline(double base_speed, PiecewiseConstant trace, std::vector<Episode> explicit_episodes,
                 std::optional<RandomEpisodes> random);

  double speed(double t) const;

  // The time at which `work` seconds of speed-1 compute, begun at `start`, are done. Walks the
  // speed's pieces from `start`: O(log n) per piece, and a step usually spans one piece.
  double compute_end(double start, double work) const;

  // This worker's episodes that start before `horizon`, in order of start. `horizon` must be
  // finite when the worker has random episodes.
  std::vector<Episode> episodes_before(double horizon) const;

 private:
  // Applies every random episode that starts at or before `t`. Requires the lock.
  void generate_through(double t) const;
  void apply(const Episode& episode) const;
  // The start of the first random episode not yet applied: the slowdowns are final before it.
  double known_until() const;

  double base_speed_;
  PiecewiseConstant trace_;

  mutable std::mutex mutex_;
  mutable PiecewiseConstant slowdown_;     // product of the active episodes' slowdowns
  mutable std::vector<Episode> episodes_;  // applied so far, sorted by start
  mutable std::optional<RandomEpisodes> random_;
  mutable std::optional<Episode> pending_;  // the next random episode, drawn but not applied
};

}  // namespace hetps::cluster
