#include "model/learned_agent.h"

#include <algorithm>

#include "data/random.h"

namespace hetps::model {

protocol::CommunityConfiguration LearnedAgent::choose(
    const protocol::AgentObservation& observation) {
  const PolicyOutput output =
      file_.network.evaluate(protocol::state_vector(observation, file_.space));
  const auto best = std::max_element(output.probabilities.begin(), output.probabilities.end());
  return file_.space.at(static_cast<size_t>(best - output.probabilities.begin()));
}

std::shared_ptr<protocol::CommunityAgent> load_learned_agent_file(const std::string& file) {
  return std::make_shared<LearnedAgent>(load_agent_file(file));
}

int draw_action(const std::vector<double>& probabilities, double uniform) {
  double cumulative = 0;
  for (size_t action = 0; action < probabilities.size(); ++action) {
    cumulative += probabilities[action];
    if (uniform < cumulative) return static_cast<int>(action);
  }
  return static_cast<int>(probabilities.size()) - 1;
}

protocol::CommunityConfiguration ExploringAgent::choose(
    const protocol::AgentObservation& observation) {
  Decision decision{protocol::state_vector(observation, space_), 0, observation.now};
  decision.action =
      draw_action(network_.evaluate(decision.state).probabilities, data::uniform01(rng_));
  decisions_.push_back(decision);
  return space_.at(static_cast<size_t>(decision.action));
}

}  // namespace hetps::model
