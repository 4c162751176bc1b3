#include "protocol/straggler_detector.h"

#include <algorithm>

#include "checkpoint/saved_integers.h"
#include "protocol/median.h"

namespace hetps::protocol {

StragglerDetector::StragglerDetector(int workers, StragglerOptions options)
    : options_(options), workers_(static_cast<size_t>(workers), fresh_steps()) {}

StragglerDetector::Change StragglerDetector::observe(int worker, double step_seconds, double now) {
  WorkerSteps& steps = workers_[static_cast<size_t>(worker)];
  steps.recent.add(step_seconds);
  const bool judged = steps.profile.size() >= static_cast<size_t>(options_.window);
  const bool slow = judged && steps.recent.mean() > options_.factor * median({steps.profile.begin(),
                                                                              steps.profile.end()});
  Change change = Change::None;
  if (slow && !steps.flagged) {
    steps.flagged = true;
    steps.flagged_at = now;
    change = Change::Flagged;
  } else if (!slow && steps.flagged) {
    steps.flagged = false;
    ended_episodes_seconds_ += now - steps.flagged_at;
    ++ended_episodes_;
    change = Change::Cleared;
  }
  if (!steps.flagged) {
    steps.profile.push_back(step_seconds);
    if (steps.profile.size() > kProfileSteps) steps.profile.pop_front();
  }
  return change;
}

void StragglerDetector::forget(int worker) {
  workers_[static_cast<size_t>(worker)] = fresh_steps();
}

int StragglerDetector::stragglers() const {
  return static_cast<int>(std::ranges::count(workers_, true, &WorkerSteps::flagged));
}

double StragglerDetector::profiled_seconds(int worker) const {
  return median({at(worker).profile.begin(), at(worker).profile.end()});
}

double StragglerDetector::slowdown(int worker) const {
  const double profiled = profiled_seconds(worker);
  return profiled > 0 ? at(worker).recent.mean() / profiled : 1.0;
}

double StragglerDetector::mean_episode_seconds(double fallback) const {
  if (ended_episodes_ == 0) return fallback;
  return ended_episodes_seconds_ / static_cast<double>(ended_episodes_);
}

nlohmann::json StragglerDetector::save_state() const {
  nlohmann::json workers = nlohmann::json::array();
  for (const WorkerSteps& steps : workers_) {
    workers.push_back({{"profile", steps.profile},
                       {"recent", steps.recent.save_state()},
                       {"flagged", steps.flagged},
                       {"flagged_at", steps.flagged_at}});
  }
  return {{"workers", workers},
          {"ended_episodes_seconds", ended_episodes_seconds_},
          {"ended_episodes", ended_episodes_}};
}

void StragglerDetector::restore_state(const nlohmann::json& state) {
  const auto& workers = state.at("workers");
  workers_.assign(workers.size(), fresh_steps());
  for (size_t w = 0; w < workers.size(); ++w) {
    workers_[w].profile = workers[w].at("profile").get<std::deque<double>>();
    workers_[w].recent.restore_state(workers[w].at("recent"));
    workers_[w].flagged = workers[w].at("flagged").get<bool>();
    workers_[w].flagged_at = workers[w].at("flagged_at").get<double>();
  }
  ended_episodes_seconds_ = state.at("ended_episodes_seconds").get<double>();
  ended_episodes_ = checkpoint::integer<int64_t>(state.at("ended_episodes"));
}

}  // namespace hetps::protocol
