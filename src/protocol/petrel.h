// Petrel [Zhou et al., TPDS 2021; spec/petrel.md]: community-aware synchronous parallel.
//   1. Profiling. The first `profile_steps` rounds run as BSP over everyone (one community,
//      aggregated at the server), each worker's step and round-trip times feeding its moving
//      window (WorkerFeatures).
//   2. Communities. The configuration agent (community_agent.h) sees the normalized features,
//      the installed configuration and the loss slope, and answers K and the staleness bound:
//      the heuristic agent K = 1 for alike workers, else the K of k-means with the best
//      silhouette (community_choice.h); the learned agent its network's choice. Petrel forms K
//      communities by k-means (`grouping = "dbscan"`: by DBSCAN, whatever K). Each community is
//      led by its member with the fastest link (the smallest round trip), and runs
//      CommunityRounds: synchronous inside, aggregated at the leader (or the server),
//      asynchronous between communities, bounded by the agent's staleness.
//   3. Regrouping. Every `regroup_interval` seconds of engine time the workers are profiled
//      again (step 1) and regrouped (step 2). Between two, every update keeps feeding the
//      profile its step times (a leader's carries each member's; round trips only where the
//      community aggregates at the server: a leader's carries its members' models too); when a
//      worker's normalized step time or round trip has changed by a factor of more than 1 +
//      `drift_threshold` (up or down) since the agent last decided (counted once every worker's
//      window holds only samples from after the decision), the agent decides again on the profile
//      as it is. A factor, not a distance: the slowest workers' features are the largest, and their
//      noise would otherwise count most. Each regroup takes effect
//      once every community finished its round, and is a `regroup` record (reason,
//      communities with their leaders first, aggregation, the staleness bound, and the
//      silhouette score of k-means' communities when there are two or more).
// A dead worker leaves its community at once (CommunityRounds) and the profile.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "protocol/community_agent.h"
#include "protocol/community_rounds.h"
#include "protocol/moving_mean.h"
#include "protocol/protocol.h"
#include "protocol/registry.h"
#include "protocol/worker_features.h"

namespace hetps::protocol {

struct PetrelOptions {
  int profile_steps = 10;
  int max_communities = 4;
  bool dbscan = false;
  double dbscan_eps = 0.3;
  int dbscan_min_points = 2;
  bool aggregate_at_leader = true;
  int64_t community_staleness = kUnbounded;
  double homogeneity_threshold = 0.15;
  double regroup_interval_s = 30;
  double drift_threshold = 0.5;  // 0: no regroup on drift
  int window = 10;
  uint64_t seed = 0;
  // Null: the heuristic agent over max_communities, homogeneity_threshold and
  // community_staleness.
  std::shared_ptr<CommunityAgent> agent;
};

// Petrel's `protocol.*` parameters, and the options they give (the agent left null: the
// caller makes it from `agent` and `agent_file`).
std::vector<ParamSpec> petrel_params();
PetrelOptions petrel_options(const config::ProtocolParams& params);

class Petrel : public Protocol {
 public:
  explicit Petrel(PetrelOptions options);

  std::string name() const override { return "petrel"; }
  void start(const RunShape& shape, Actions& actions) override;
  void on_pull_request(int worker, Actions& actions) override;
  void on_update(const UpdateInfo& update, Actions& actions) override;
  void on_worker_failed(int worker, Actions& actions) override;
  nlohmann::json save_state() const override;
  void restore_state(const nlohmann::json& state) override;

 private:
  // One community of every live worker, aggregated at the server: BSP, to measure everyone.
  Grouping everyone() const;
  // Feeds the update's step and round-trip times to the profile.
  void observe(const UpdateInfo& update);
  // One worker's sample; without a round trip, its profile's mean stands in for one.
  void observe_worker(int worker, double step_seconds, std::optional<double> round_trip);
  // Asks the agent for a configuration on the profile, applies its staleness bound and
  // regroups into its communities; `record` starts the regroup record (its reason).
  void decide(double now, nlohmann::json record, Actions& actions);
  // Keeps `points`, the normalized features of the live `workers`, as those drift is measured
  // from.
  void measure_drift_from_here(const std::vector<int>& workers, const Points& points);
  // The worker whose normalized features changed by the largest factor since the last
  // decision, and that factor minus 1; nullopt when none moved by more than drift_threshold.
  std::optional<std::pair<int, double>> drift() const;
  Grouping communities_of(const std::vector<int>& workers, const Points& points, int communities,
                          std::optional<double>& silhouette) const;
  void set_staleness(int64_t staleness);
  // CommunityRounds under `staleness` as `state` (CommunityRounds::save_state) left them, dead
  // workers included.
  CommunityRounds rounds_restored_from(const nlohmann::json& state, int64_t staleness) const;
  void regroup(Grouping grouping, nlohmann::json record, Actions& actions);
  // Writes the `regroup` record once a requested regroup has taken effect.
  void record_installed(Actions& actions);

  PetrelOptions options_;
  std::shared_ptr<CommunityAgent> agent_;
  int workers_ = 0;
  std::set<int> live_;
  WorkerFeatures features_;
  std::optional<CommunityRounds> rounds_;
  bool profiling_ = true;
  double last_profile_time_ = 0;
  double last_update_time_ = 0;  // the engine time of the latest update: a failure's decision
  CommunityConfiguration configuration_;
  // Each live worker's normalized features at the last decision (empty while profiling).
  std::map<int, std::vector<double>> decided_features_;
  // Each worker's profile samples since then: drift counts once every window is renewed.
  std::map<int, int> samples_since_decision_;
  MovingMean recent_loss_;
  // The mean training loss at the previous decision, for the agent's loss slope.
  std::optional<double> decision_loss_;
  // The next regroup record, written once its grouping is installed.
  std::optional<nlohmann::json> pending_record_;
};

}  // namespace hetps::protocol
