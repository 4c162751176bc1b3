#include "engine/checkpoint_schedule.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hetps::engine {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

}  // namespace

CheckpointSchedule::CheckpointSchedule(const RunCheckpoints& checkpoints, double interval)
    : checkpoints_(checkpoints), interval_(interval), next_(interval > 0 ? interval : kNever) {}

double CheckpointSchedule::next_look(double time) const {
  if (!enabled()) return kNever;
  if (checkpoints_.stop == nullptr) return next_;
  return std::min(next_, time + kStopPollSeconds);
}

void CheckpointSchedule::taken(double time) {
  if (interval_ <= 0) return;
  next_ = (std::floor(time / interval_) + 1) * interval_;
}

}  // namespace hetps::engine
