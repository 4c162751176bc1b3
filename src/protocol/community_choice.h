// Petrel's heuristic configuration agent (spec/petrel.md, "Configuration agent", `agent =
// "heuristic"`) as a pure function of the workers' normalized features (worker_features.h):
//   1. When the workers are alike — the coefficient of variation (population standard
//      deviation over mean) of their step time, feature kStepTime, is below
//      `homogeneity_threshold` — one community: the silhouette score is not defined for one.
//   2. Otherwise, for K = 2 ... min(K_max, workers), k-means with the given seed; the K whose
//      communities have the best silhouette score wins, the smaller K on a tie.
// Normalizing by the median does not change the coefficient of variation, so the threshold
// means the same on raw and normalized step times.
#pragma once

#include <cstdint>
#include <optional>

#include "protocol/community_agent.h"
#include "protocol/kmeans.h"

namespace hetps::protocol {

struct CommunityChoiceOptions {
  int max_communities = 0;              // K_max: required, >= 1
  double homogeneity_threshold = 0.15;  // >= 0
  uint64_t seed = 0;                    // k-means++ seeding, the same for every K
};

struct CommunityChoice {
  Memberships memberships;           // K = memberships.communities
  std::optional<double> silhouette;  // of the chosen communities; none when K = 1
};

// `features`: one vector per worker, kStepTime first. Throws std::invalid_argument for no
// workers, vectors without a step time, a step time that is not positive, K_max < 1, a
// negative threshold, or bad points (kmeans.h).
CommunityChoice choose_communities(const Points& features, const CommunityChoiceOptions& options);

// The heuristic as Petrel's agent (`agent = "heuristic"`): K from `choose_communities` over the
// observed features, seeded with the run's seed; the staleness bound fixed.
class HeuristicAgent : public CommunityAgent {
 public:
  // `options.seed` is ignored: each observation carries the run's.
  HeuristicAgent(CommunityChoiceOptions options, int64_t staleness)
      : options_(options), staleness_(staleness) {}
  CommunityConfiguration choose(const AgentObservation& observation) override;

 private:
  CommunityChoiceOptions options_;
  int64_t staleness_;
};

}  // namespace hetps::protocol
