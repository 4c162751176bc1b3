#include "protocol/synchronous_rounds.h"

#include <stdexcept>

#include <fmt/format.h>

#include "checkpoint/saved_integers.h"

namespace hetps::protocol {

SynchronousRounds::SynchronousRounds(std::string name, WorkerPlan plan)
    : name_(std::move(name)), plan_(plan) {}

void SynchronousRounds::start(const RunShape& shape, Actions&) {
  workers_ = shape.workers;
  live_.clear();
  for (int w = 0; w < shape.workers; ++w) live_.insert(w);
}

void SynchronousRounds::on_pull_request(int worker, Actions& actions) {
  if (!live_.contains(worker)) return;
  if (contributions_.contains(worker)) {
    held_pulls_.insert(worker);
    return;
  }
  actions.reply_pull(worker, plan_);
}

void SynchronousRounds::on_update(const UpdateInfo& update, Actions& actions) {
  if (!live_.contains(update.worker) || contributions_.contains(update.worker)) {
    actions.discard(update.id);
    return;
  }
  contributions_[update.worker] = update.id;
  close_round_if_complete(actions);
}

void SynchronousRounds::on_worker_failed(int worker, Actions& actions) {
  if (!live_.erase(worker)) return;
  held_pulls_.erase(worker);
  if (auto it = contributions_.find(worker); it != contributions_.end()) {
    actions.discard(it->second);
    contributions_.erase(it);
  }
  close_round_if_complete(actions);
}

void SynchronousRounds::close_round_if_complete(Actions& actions) {
  if (contributions_.empty() || contributions_.size() < live_.size()) return;
  ApplyOrder order{plan_.kind, {}, {}};
  const double weight = 1.0 / static_cast<double>(contributions_.size());
  for (const auto& [worker, id] : contributions_) {  // worker order: deterministic sums
    order.update_ids.push_back(id);
    order.weights.push_back(weight);
  }
  contributions_.clear();
  actions.apply(order);
  ++rounds_closed_;
  std::set<int> released;
  released.swap(held_pulls_);
  for (int worker : released) actions.reply_pull(worker, plan_);
}

SynchronousRounds::AbandonedRound SynchronousRounds::abandon_round() {
  AbandonedRound abandoned;
  abandoned.contributions.swap(contributions_);
  abandoned.held_pulls.swap(held_pulls_);
  return abandoned;
}

nlohmann::json SynchronousRounds::save_state() const {
  return {{"live", live_},
          {"contributions", contributions_},
          {"held_pulls", held_pulls_},
          {"rounds_closed", rounds_closed_}};
}

// The engine indexes its workers by the ids a restored round answers: a state naming others is
// refused before it replaces anything, as StalenessBounded's is.
void SynchronousRounds::restore_state(const nlohmann::json& state) {
  auto live = checkpoint::integers<std::set<int>>(state.at("live"));
  auto contributions = checkpoint::integer_map<int, int>(state.at("contributions"));
  auto held_pulls = checkpoint::integers<std::set<int>>(state.at("held_pulls"));
  const auto rounds_closed = checkpoint::integer_or<int64_t>(state, "rounds_closed", 0);  // older
  const auto refuse = [&](const std::string& why) {
    throw std::invalid_argument(fmt::format("{}: the saved state {}", name_, why));
  };
  if (const auto outside = checkpoint::id_outside(live, workers_); workers_ > 0 && outside) {
    refuse(fmt::format("names worker {} among its live workers; expected ids from 0 to {}",
                       *outside, workers_ - 1));
  }
  for (const auto& [worker, id] : contributions) {
    if (!live.contains(worker))
      refuse(fmt::format("holds an update of worker {}, not live", worker));
  }
  for (int worker : held_pulls) {
    if (!contributions.contains(worker)) {
      refuse(
          fmt::format("holds a pull of worker {}, which has not contributed to the round", worker));
    }
  }
  if (rounds_closed < 0) refuse(fmt::format("counts {} rounds closed", rounds_closed));
  live_ = std::move(live);
  contributions_ = std::move(contributions);
  held_pulls_ = std::move(held_pulls);
  rounds_closed_ = rounds_closed;
}

}  // namespace hetps::protocol
