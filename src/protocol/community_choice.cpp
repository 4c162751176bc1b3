#include "protocol/community_choice.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "protocol/silhouette.h"
#include "protocol/worker_features.h"

namespace hetps::protocol {
namespace {

void check_inputs(const Points& features, const CommunityChoiceOptions& options) {
  if (options.max_communities < 1) {
    throw std::invalid_argument(fmt::format("community choice: K_max = {}; it must be at least 1",
                                            options.max_communities));
  }
  if (!(options.homogeneity_threshold >= 0)) {
    throw std::invalid_argument(
        fmt::format("community choice: homogeneity_threshold = {}; it must be at least 0",
                    options.homogeneity_threshold));
  }
  if (features.empty()) {
    throw std::invalid_argument("community choice: no workers to group; there must be at least 1");
  }
  check_points(features, "community choice");
  if (features[0].size() <= kStepTime) {
    throw std::invalid_argument(
        "community choice: the feature vectors are empty; the first must be the step time");
  }
  for (size_t w = 0; w < features.size(); ++w) {
    if (!(features[w][kStepTime] > 0)) {
      throw std::invalid_argument(
          fmt::format("community choice: worker {}'s step time is {}; it must be positive", w,
                      features[w][kStepTime]));
    }
  }
}

double step_time_variation(const Points& features) {
  double sum = 0;
  for (const auto& worker : features) sum += worker[kStepTime];
  const double mean = sum / static_cast<double>(features.size());
  double squares = 0;
  for (const auto& worker : features) {
    squares += (worker[kStepTime] - mean) * (worker[kStepTime] - mean);
  }
  return std::sqrt(squares / static_cast<double>(features.size())) / mean;
}

}  // namespace

CommunityChoice choose_communities(const Points& features, const CommunityChoiceOptions& options) {
  check_inputs(features, options);
  const int workers = static_cast<int>(features.size());
  CommunityChoice best{.memberships = {std::vector<int>(features.size(), 0), 1},
                       .silhouette = std::nullopt};
  if (step_time_variation(features) < options.homogeneity_threshold) return best;
  for (int k = 2; k <= std::min(options.max_communities, workers); ++k) {
    Memberships memberships = kmeans(features, {.communities = k, .seed = options.seed});
    // With fewer distinct workers than K, k-means makes fewer communities; all alike is one.
    if (memberships.communities < 2) continue;
    const double score = silhouette_score(features, memberships);
    if (!best.silhouette || score > *best.silhouette) best = {std::move(memberships), score};
  }
  return best;
}

CommunityConfiguration HeuristicAgent::choose(const AgentObservation& observation) {
  CommunityChoiceOptions options = options_;
  options.seed = observation.seed;
  return {choose_communities(observation.features, options).memberships.communities, staleness_};
}

}  // namespace hetps::protocol
