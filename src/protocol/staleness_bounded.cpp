#include "protocol/staleness_bounded.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "checkpoint/saved_integers.h"

namespace hetps::protocol {

StalenessBounded::StalenessBounded(std::string name, int64_t bound)
    : name_(std::move(name)), bound_(bound) {}

void StalenessBounded::start(const RunShape& shape, Actions&) {
  started_.assign(static_cast<size_t>(shape.workers), 0);
  pushed_.assign(static_cast<size_t>(shape.workers), 0);
  live_.clear();
  for (int w = 0; w < shape.workers; ++w) live_.insert(w);
}

int64_t StalenessBounded::min_pushed_by_live() const {
  int64_t least = kUnbounded;
  for (int w : live_) least = std::min(least, pushed_[w]);
  return least;
}

bool StalenessBounded::may_start_next_step(int worker) const {
  if (bound_ == kUnbounded) return true;
  const int64_t step = started_[worker] + 1;
  return min_pushed_by_live() >= step - 1 - bound_;
}

void StalenessBounded::on_pull_request(int worker, Actions& actions) {
  if (!live_.contains(worker)) return;
  if (!may_start_next_step(worker)) {
    held_pulls_.insert(worker);
    return;
  }
  ++started_[worker];
  actions.reply_pull(worker, WorkerPlan{});
}

void StalenessBounded::on_update(const UpdateInfo& update, Actions& actions) {
  if (!live_.contains(update.worker)) {
    actions.discard(update.id);
    return;
  }
  ++pushed_[update.worker];
  actions.apply(ApplyOrder{UpdateKind::Gradient, {update.id}, {1.0}});
  release_held_pulls(actions);
}

void StalenessBounded::on_worker_failed(int worker, Actions& actions) {
  if (!live_.erase(worker)) return;
  held_pulls_.erase(worker);
  release_held_pulls(actions);
}

void StalenessBounded::release_held_pulls(Actions& actions) {
  std::vector<int> released;
  for (int worker : held_pulls_) {
    if (may_start_next_step(worker)) released.push_back(worker);
  }
  for (int worker : released) {
    held_pulls_.erase(worker);
    ++started_[worker];
    actions.reply_pull(worker, WorkerPlan{});
  }
}

nlohmann::json StalenessBounded::save_state() const {
  return {{"started", started_}, {"pushed", pushed_}, {"live", live_}, {"held_pulls", held_pulls_}};
}

// The counts are indexed by the saved ids, and by the run's workers once started: a state that
// does not fit either is refused before it replaces anything (found by fuzz/checkpoint.cpp).
void StalenessBounded::restore_state(const nlohmann::json& state) {
  auto started = checkpoint::integers<std::vector<int64_t>>(state.at("started"));
  auto pushed = checkpoint::integers<std::vector<int64_t>>(state.at("pushed"));
  auto live = checkpoint::integers<std::set<int>>(state.at("live"));
  auto held_pulls = checkpoint::integers<std::set<int>>(state.at("held_pulls"));
  const size_t workers = started.size();
  if (pushed.size() != workers || (!started_.empty() && started_.size() != workers)) {
    throw std::invalid_argument(fmt::format(
        "{}: the saved state counts steps started by {} workers and pushed by {}; this run "
        "has {}",
        name_, workers, pushed.size(), started_.size()));
  }
  const auto negative = [](int64_t count) { return count < 0; };
  if (std::ranges::any_of(started, negative) || std::ranges::any_of(pushed, negative)) {
    throw std::invalid_argument(
        fmt::format("{}: the saved state counts a negative number of steps", name_));
  }
  for (const auto* ids : {&live, &held_pulls}) {
    if (const auto outside = checkpoint::id_outside(*ids, static_cast<int>(workers))) {
      throw std::invalid_argument(fmt::format(
          "{}: the saved state names worker {} among its live workers or held pulls; expected "
          "ids below its {} workers",
          name_, *outside, workers));
    }
  }
  started_ = std::move(started);
  pushed_ = std::move(pushed);
  live_ = std::move(live);
  held_pulls_ = std::move(held_pulls);
}

}  // namespace hetps::protocol
