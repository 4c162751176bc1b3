#include "protocol/community_agent.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "protocol/worker_features.h"

namespace hetps::protocol {
namespace {

// The value at quantile q in [0, 1] of ascending `sorted`, interpolated linearly.
double quantile(const std::vector<double>& sorted, double q) {
  const double at = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<size_t>(std::floor(at));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = at - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

float clamped_log2(double value) {
  // A round trip of 0 (a network-free simulation) has no logarithm: it is as fast as allowed.
  const double log = value > 0 ? std::log2(value) : -kLogFeatureLimit;
  return static_cast<float>(std::clamp(log, -kLogFeatureLimit, kLogFeatureLimit));
}

struct LoaderSlot {
  std::mutex mutex;
  LearnedAgentLoader loader;
};

LoaderSlot& loader_slot() {
  static LoaderSlot slot;
  return slot;
}

}  // namespace

ConfigurationSpace::ConfigurationSpace(int max_communities, std::vector<int64_t> staleness_choices)
    : max_communities_(max_communities), staleness_choices_(std::move(staleness_choices)) {
  if (max_communities_ < 1) {
    throw std::invalid_argument(
        fmt::format("agent actions: K_max = {}; it must be at least 1", max_communities_));
  }
  if (staleness_choices_.empty()) {
    throw std::invalid_argument("agent actions: no staleness choices; give at least one");
  }
  for (size_t i = 0; i < staleness_choices_.size(); ++i) {
    const int64_t bound = staleness_choices_[i];
    if (bound < 0) {
      throw std::invalid_argument(fmt::format(
          "agent actions: staleness choice {} is {}; it must be at least 0 (or unbounded)", i,
          bound));
    }
    if (std::find(staleness_choices_.begin(), staleness_choices_.begin() + static_cast<long>(i),
                  bound) != staleness_choices_.begin() + static_cast<long>(i)) {
      throw std::invalid_argument(
          fmt::format("agent actions: staleness choice {} ({}) repeats an earlier one", i, bound));
    }
  }
}

size_t ConfigurationSpace::size() const {
  return static_cast<size_t>(max_communities_) * staleness_choices_.size();
}

CommunityConfiguration ConfigurationSpace::at(size_t action) const {
  if (action >= size()) {
    throw std::out_of_range(
        fmt::format("agent actions: action {} is not in 0 ... {}", action, size() - 1));
  }
  return {static_cast<int>(action / staleness_choices_.size()) + 1,
          staleness_choices_[action % staleness_choices_.size()]};
}

std::vector<int64_t> default_staleness_choices() { return {kUnbounded, 0, 4}; }

size_t state_size(const ConfigurationSpace& space) {
  return kFeatureCount * kStateQuantiles + 1 + space.staleness_choices().size() + 1;
}

std::vector<float> state_vector(const AgentObservation& observation,
                                const ConfigurationSpace& space) {
  const Points& features = observation.features;
  if (features.empty()) {
    throw std::invalid_argument("agent state: the observation has no workers");
  }
  std::vector<float> state;
  state.reserve(state_size(space));
  for (size_t feature = 0; feature < kFeatureCount; ++feature) {
    std::vector<double> sorted;
    for (size_t w = 0; w < features.size(); ++w) {
      if (features[w].size() != kFeatureCount) {
        throw std::invalid_argument(
            fmt::format("agent state: worker {} has {} features; the profile has {}", w,
                        features[w].size(), kFeatureCount));
      }
      sorted.push_back(features[w][feature]);
    }
    std::sort(sorted.begin(), sorted.end());
    for (size_t q = 0; q < kStateQuantiles; ++q) {
      state.push_back(clamped_log2(
          quantile(sorted, static_cast<double>(q) / static_cast<double>(kStateQuantiles - 1))));
    }
  }
  state.push_back(static_cast<float>(observation.current.communities) /
                  static_cast<float>(space.max_communities()));
  for (const int64_t bound : space.staleness_choices()) {
    state.push_back(observation.current.staleness == bound ? 1.0F : 0.0F);
  }
  state.push_back(static_cast<float>(std::clamp(observation.loss_slope, -1.0, 1.0)));
  return state;
}

double decision_reward(const DecisionInterval& interval, double traffic_penalty) {
  if (!(interval.seconds > 0)) {
    throw std::invalid_argument(fmt::format(
        "agent reward: a decision interval of {} s; it must be positive", interval.seconds));
  }
  return (interval.loss_before - interval.loss_after) / interval.seconds -
         traffic_penalty * interval.bytes_to_server / interval.seconds;
}

void install_learned_agent_loader(LearnedAgentLoader loader) {
  LoaderSlot& slot = loader_slot();
  std::lock_guard lock(slot.mutex);
  slot.loader = std::move(loader);
}

std::shared_ptr<CommunityAgent> load_learned_agent(const std::string& file) {
  LearnedAgentLoader loader;
  {
    LoaderSlot& slot = loader_slot();
    std::lock_guard lock(slot.mutex);
    loader = slot.loader;
  }
  if (!loader) {
    throw std::invalid_argument(
        "protocol.agent = \"learned\": this program cannot load protocol.agent_file " + file +
        " (the learned agent is libtorch code, which the hetps command line installs)");
  }
  return loader(file);
}

}  // namespace hetps::protocol
