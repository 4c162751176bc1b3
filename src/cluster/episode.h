// A straggler episode: a stretch of time in which one worker computes more slowly.
#pragma once

namespace hetps::cluster {

// `worker` runs `slowdown` times slower during [start, start+duration). Episodes of one worker
// may overlap; their slowdowns then multiply (two ×2 episodes at once make the worker 4× slower).
struct Episode {
  int worker = 0;
  double start = 0;
  double duration = 0;
  double slowdown = 1;
  double end() const { return start + duration; }

  bool operator==(const Episode&) const = default;
};

}  // namespace hetps::cluster
