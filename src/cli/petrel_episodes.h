// The environment `hetps tune petrel` trains and scores Petrel's configuration agent in
// (spec/petrel.md, "Configuration agent"): an episode is one simulator run of the job, as the
// user configured it (by default a tiny synthetic one, so an episode takes about a second), on
// a randomly drawn heterogeneous cluster, with the agent deciding at every regroup. Each
// decision's reward is that of its decision interval (protocol/decision_rewards.h), from the
// run's own evaluations: the test loss and the bytes to the server at the decision and at the
// next one (the run's end for the last).
//
// The agent reaches the run's Petrel through a protocol registered for the environment's
// lifetime, `petrel_episode`: Petrel's parameters and `episode`, the number under which the
// running episode's agent waits. So one PetrelEpisodes at a time per process; its episodes may
// run on several threads at once.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "config/settings.h"
#include "protocol/community_agent.h"
#include "protocol/registry.h"

namespace hetps::cli {

// A heterogeneous cluster: every worker in one of one to three tiers, each tier of its own
// speed (log-uniform in [1/8, 1], the first tier at 1) and link (a third of the tiers on slow,
// distant links: 0.5 Gbps, 2 ms; the others 10 Gbps, 0.05 ms).
struct EpisodeCluster {
  std::vector<double> speeds;
  std::vector<double> link_gbps;
  std::vector<double> link_latency_ms;
  int tiers = 1;
};

// The same seed gives the same cluster on every standard library (data/random.h's draws).
EpisodeCluster draw_cluster(int workers, uint64_t seed);

struct EpisodeOutcome {
  std::vector<double> decision_times;
  std::vector<double> rewards;  // by decision
  double total_reward = 0;
  double final_loss = 0;  // the last evaluation's test loss
  double final_accuracy = 0;
  std::optional<double> time_to_target;
  double total_time = 0;
  int64_t bytes_to_server = 0;
};

class PetrelEpisodes {
 public:
  // `settings`: the job (the episodes' defaults first, then the user's). Throws ConfigError for
  // settings that do not resolve.
  explicit PetrelEpisodes(config::UserSettings settings);

  // The job's config on the cluster drawn from `cluster_seed`, which also seeds the run.
  config::Config config_for(uint64_t cluster_seed, uint64_t episode) const;
  // The job as resolved, on its own cluster: its workers, Petrel's settings, the reward's
  // `protocol.traffic_penalty`.
  const config::Config& job() const { return job_; }

  // Runs one episode with `agent` deciding; thread-safe.
  EpisodeOutcome run(uint64_t cluster_seed, protocol::CommunityAgent& agent);

 private:
  class AgentSlot;
  protocol::CommunityAgent& agent_of(uint64_t episode);

  config::UserSettings settings_;
  protocol::ProtocolRegistration registration_;  // before job_, which names it
  config::Config job_;
  std::mutex mutex_;
  uint64_t next_episode_ = 0;
  std::map<uint64_t, protocol::CommunityAgent*> agents_;  // the running episodes'
};

// Adds, after the user's `settings`, the settings an episode starts from where the user gave
// none: synthetic data (unless another data set is named) and a budget that make an episode
// cheap, and regroups often enough for several decisions. Throws ConfigError as resolve does
// for a setting of the user's it cannot read.
void add_episode_defaults(config::UserSettings& settings);

}  // namespace hetps::cli
