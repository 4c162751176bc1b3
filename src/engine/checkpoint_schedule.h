// When a real engine's next checkpoint is due (RunCheckpoints): every `run.checkpoint_interval`
// seconds of engine time, and as soon as the stop flag is set. A signal sets the flag at any
// moment and nothing wakes the server for it, so a loop that waits asks `next_look` how long it
// may sleep: the flag is looked at every kStopPollSeconds.
#pragma once

#include "engine/run_checkpoints.h"

namespace hetps::engine {

// The first multiple of `interval` (> 0) after `time`, so that a checkpoint that came late
// stands for every boundary it passed; later than `time` even where the interval is below its
// precision (`run.checkpoint_interval = 1e-17` at 0.5 s), which repeated adding never leaves.
double next_multiple_after(double time, double interval);

class CheckpointSchedule {
 public:
  static constexpr double kStopPollSeconds = 0.05;

  // `interval` 0: checkpoints only on a stop. Nothing is ever due when `checkpoints.save` is
  // empty.
  CheckpointSchedule(const RunCheckpoints& checkpoints, double interval);

  bool enabled() const { return static_cast<bool>(checkpoints_.save); }
  bool stop_asked() const { return checkpoints_.stop != nullptr && checkpoints_.stop->load(); }
  bool due(double time) const { return enabled() && (stop_asked() || time >= next_); }
  // The engine time by which a waiting loop must look at `due` again (infinity: never).
  double next_look(double time) const;
  // A checkpoint was taken at `time`: the next falls on the first multiple of the interval
  // after it (a checkpoint that came late stands for the boundaries it passed).
  void taken(double time);

  // When the next one is due, for a checkpoint's state.
  double next() const { return next_; }
  void restore_next(double next) { next_ = next; }

 private:
  const RunCheckpoints& checkpoints_;
  double interval_;
  double next_;
};

}  // namespace hetps::engine
