// Petrel's learned configuration agent seen as a CommunityAgent (protocol/community_agent.h):
// the observation becomes the state vector, the network's policy picks an action of the
// agent's ConfigurationSpace.
//   - LearnedAgent: what `train` uses with `protocol.agent = "learned"`: the most probable action
//     (the lowest on a tie), so a run stays a function of its config and seed.
//   - ExploringAgent: an episode runner's agent in training: the action drawn from the policy,
//     and every decision remembered for the A3C update.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <random>
#include <vector>

#include "model/actor_critic.h"
#include "protocol/community_agent.h"

namespace hetps::model {

class LearnedAgent : public protocol::CommunityAgent {
 public:
  explicit LearnedAgent(AgentFile file) : file_(std::move(file)) {}
  protocol::CommunityConfiguration choose(const protocol::AgentObservation& observation) override;

 private:
  AgentFile file_;
};

// The loader `protocol.agent_file` goes through (install_learned_agent_loader).
std::shared_ptr<protocol::CommunityAgent> load_learned_agent_file(const std::string& file);

// One decision of an agent in training.
struct Decision {
  std::vector<float> state;
  int action = 0;
  double time = 0;  // engine time
};

class ExploringAgent : public protocol::CommunityAgent {
 public:
  // `network` must outlive the agent; `seed` draws the actions.
  ExploringAgent(const ActorCritic& network, const protocol::ConfigurationSpace& space,
                 uint64_t seed)
      : network_(network), space_(space), rng_(seed) {}
  protocol::CommunityConfiguration choose(const protocol::AgentObservation& observation) override;

  const std::vector<Decision>& decisions() const { return decisions_; }

 private:
  const ActorCritic& network_;
  const protocol::ConfigurationSpace& space_;
  std::mt19937_64 rng_;
  std::vector<Decision> decisions_;
};

// The action `uniform` (in [0, 1)) falls on when the probabilities are laid end to end; the
// last action when rounding leaves it past them all.
int draw_action(const std::vector<double>& probabilities, double uniform);

}  // namespace hetps::model
