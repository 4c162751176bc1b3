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

double next_multiple_after(double time, double interval) {
  const double next = (std::floor(time / interval) + 1) * interval;
  return next > time ? next : std::nextafter(time, kNever);
}

void CheckpointSchedule::taken(double time) {
  if (interval_ <= 0) return;
  next_ = next_multiple_after(time, interval_);
}

}  // namespace hetps::engine
