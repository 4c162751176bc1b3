#include "cluster/worker_timeline.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

namespace hetps::cluster {

WorkerTimeline::WorkerTimeline(double base_speed, PiecewiseConstant trace,
                               std::vector<Episode> explicit_episodes,
                               std::optional<RandomEpisodes> random)
    : base_speed_(base_speed), trace_(std::move(trace)), random_(std::move(random)) {
  for (const Episode& episode : explicit_episodes) apply(episode);
  if (random_) pending_ = random_->next();
}

void WorkerTimeline::apply(const Episode& episode) const {
  auto later =
      std::upper_bound(episodes_.begin(), episodes_.end(), episode.start,
                       [](double start, const Episode& other) { return start < other.start; });
  episodes_.insert(later, episode);
  slowdown_.multiply(episode.start, episode.end(), episode.slowdown);
}

void WorkerTimeline::generate_through(double t) const {
  while (pending_ && pending_->start <= t) {
    apply(*pending_);
    pending_ = random_->next();
  }
}

double WorkerTimeline::known_until() const {
  return pending_ ? pending_->start : std::numeric_limits<double>::infinity();
}

double WorkerTimeline::speed(double t) const {
  std::lock_guard lock(mutex_);
  generate_through(t);
  return base_speed_ * trace_.value_at(t) / slowdown_.value_at(t);
}

double WorkerTimeline::compute_end(double start, double work) const {
  // A non-finite start or work would never reach the last piece once random episodes exist.
  if (!std::isfinite(start) || !(work >= 0) || !std::isfinite(work)) {
    throw std::invalid_argument(fmt::format(
        "compute_end: start = {}, work = {}: both must be finite and work >= 0", start, work));
  }
  std::lock_guard lock(mutex_);
  double t = start;
  double remaining = work;
  for (;;) {
    generate_through(t);
    double rate = base_speed_ * trace_.value_at(t) / slowdown_.value_at(t);
    double piece_end =
        std::min({trace_.next_change_after(t), slowdown_.next_change_after(t), known_until()});
    double piece_work = rate * (piece_end - t);  // +infinity for the last piece
    if (remaining <= piece_work) return t + remaining / rate;
    remaining -= piece_work;
    t = piece_end;
  }
}

std::vector<Episode> WorkerTimeline::episodes_before(double horizon) const {
  std::lock_guard lock(mutex_);
  if (pending_ && !std::isfinite(horizon)) {
    throw std::invalid_argument(
        "episodes_until: the horizon must be finite when cluster.random_stragglers.rate_per_min "
        "> 0 (random episodes never end)");
  }
  generate_through(horizon);
  auto end =
      std::lower_bound(episodes_.begin(), episodes_.end(), horizon,
                       [](const Episode& episode, double limit) { return episode.start < limit; });
  return {episodes_.begin(), end};
}

}  // namespace hetps::cluster
