// Petrel's configuration agent as the protocol sees it (spec/petrel.md, "Configuration agent"):
// state in, action out. At every decision Petrel hands the agent an AgentObservation and
// installs the configuration it answers: K communities (k-means with that K, or DBSCAN when
// `grouping = "dbscan"`) and the bound `community_staleness` between them.
//
// The heuristic agent (community_choice.h) is one implementation; the learned one is a
// libtorch network (model/learned_agent.h), which this libtorch-free part reaches only through
// the loader the libtorch side installs (`install_learned_agent_loader`).
//
// A learned agent needs the observation as a vector of fixed length, and a discrete set of
// actions; both are defined here, beside the reward it is trained for, so that they are
// testable without libtorch:
//   - State (`state_vector`): for each feature of worker_features.h in order (step time, round
//     trip), the log2 of the sorted normalized values at kStateQuantiles evenly spaced
//     quantiles, clamped to ±kLogFeatureLimit; then the current K / K_max; then the current
//     staleness bound one-hot over the action set's choices; then the loss slope, clamped to
//     ±1. Quantiles rather than one entry per worker: the same network serves any worker count.
//     Log2: a worker twice as slow as the median and one twice as fast sit symmetrically.
//   - Action (ConfigurationSpace): every (K, staleness) pair of K = 1 ... K_max and the
//     staleness choices; action a is K = a / |choices| + 1 with choice a % |choices|.
//   - Reward (`decision_reward`) over a decision interval: the loss decrease per second, minus
//     `traffic_penalty` × bytes sent to the server per second.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "protocol/kmeans.h"
#include "protocol/protocol.h"

namespace hetps::protocol {

struct CommunityConfiguration {
  int communities = 1;
  int64_t staleness = kUnbounded;  // community_staleness; kUnbounded for none

  bool operator==(const CommunityConfiguration&) const = default;
};

// What the agent sees at a decision.
struct AgentObservation {
  Points features;                 // normalized (worker_features.h), one per live worker
  CommunityConfiguration current;  // installed now
  // The relative change of the mean training loss since the previous decision:
  // (now − before) / before; 0 at the first decision.
  double loss_slope = 0;
  // Not part of the state: the run's seed (an agent that runs k-means to decide, as the
  // heuristic does, seeds it so) and the engine time of the decision (for an environment that
  // scores decisions).
  uint64_t seed = 0;
  double now = 0;
};

class CommunityAgent {
 public:
  virtual ~CommunityAgent() = default;
  // Not const: an agent in training samples and remembers what it saw.
  virtual CommunityConfiguration choose(const AgentObservation& observation) = 0;
};

// The discrete actions of a learned agent.
class ConfigurationSpace {
 public:
  // Throws std::invalid_argument for max_communities < 1, no staleness choices, a repeated
  // choice, or a negative bound (kUnbounded is allowed).
  ConfigurationSpace(int max_communities, std::vector<int64_t> staleness_choices);

  size_t size() const;
  // Throws std::out_of_range for an action outside 0 ... size() − 1.
  CommunityConfiguration at(size_t action) const;
  int max_communities() const { return max_communities_; }
  const std::vector<int64_t>& staleness_choices() const { return staleness_choices_; }

 private:
  int max_communities_;
  std::vector<int64_t> staleness_choices_;
};

// The staleness choices `hetps tune petrel` trains over: unbounded, lock-step communities,
// and a few rounds of slack.
std::vector<int64_t> default_staleness_choices();

constexpr size_t kStateQuantiles = 8;
constexpr double kLogFeatureLimit = 4;

// The state's length for `space`.
size_t state_size(const ConfigurationSpace& space);
// Throws std::invalid_argument when the observation has no workers or its vectors are not of
// kFeatureCount features.
std::vector<float> state_vector(const AgentObservation& observation,
                                const ConfigurationSpace& space);

struct DecisionInterval {
  double seconds = 0;  // > 0
  double loss_before = 0;
  double loss_after = 0;
  double bytes_to_server = 0;
};

// Throws std::invalid_argument for an interval that is not positive.
double decision_reward(const DecisionInterval& interval, double traffic_penalty);

// How `protocol.agent = "learned"` gets its agent from `protocol.agent_file`. The libtorch side
// installs it (the command line does, before any run); a later install replaces it.
using LearnedAgentLoader = std::function<std::shared_ptr<CommunityAgent>(const std::string& file)>;
void install_learned_agent_loader(LearnedAgentLoader loader);
// Throws std::invalid_argument when no loader is installed (a program without libtorch), and
// whatever the loader throws for a bad file.
std::shared_ptr<CommunityAgent> load_learned_agent(const std::string& file);

}  // namespace hetps::protocol
