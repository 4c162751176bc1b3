// The configuration agent's plumbing on a scripted agent, without training: what Petrel shows
// the agent, how an action decodes and takes effect, and the reward's arithmetic.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "protocol/community_agent.h"
#include "protocol/petrel.h"
#include "support/protocol_driving.h"
#include "support/recording_actions.h"

namespace hetps::protocol {
namespace {

using ::testing::HasSubstr;
using testing::make_protocol;
using testing::push;
using testing::RecordingActions;

// Answers the configurations it was given, in turn, and remembers what it saw.
class ScriptedAgent : public CommunityAgent {
 public:
  explicit ScriptedAgent(std::vector<CommunityConfiguration> script) : script_(std::move(script)) {}
  CommunityConfiguration choose(const AgentObservation& observation) override {
    seen.push_back(observation);
    return script_.at(seen.size() - 1);
  }
  std::vector<AgentObservation> seen;

 private:
  std::vector<CommunityConfiguration> script_;
};

TEST(ConfigurationSpaceTest, ActionsDecodeToKThenStaleness) {
  const ConfigurationSpace space(3, {kUnbounded, 0, 4});
  ASSERT_EQ(space.size(), 9u);
  EXPECT_EQ(space.at(0), (CommunityConfiguration{1, kUnbounded}));
  EXPECT_EQ(space.at(2), (CommunityConfiguration{1, 4}));
  EXPECT_EQ(space.at(4), (CommunityConfiguration{2, 0}));
  EXPECT_EQ(space.at(8), (CommunityConfiguration{3, 4}));
  EXPECT_THROW(space.at(9), std::out_of_range);
}

TEST(ConfigurationSpaceTest, BadSpacesAreNamed) {
  EXPECT_THROW(ConfigurationSpace(0, {0}), std::invalid_argument);
  EXPECT_THROW(ConfigurationSpace(2, {}), std::invalid_argument);
  EXPECT_THROW(ConfigurationSpace(2, {-3}), std::invalid_argument);
  try {
    ConfigurationSpace(2, {0, 4, 0});
    FAIL() << "a repeated choice was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("staleness choice 2 (0) repeats an earlier one"));
  }
}

TEST(AgentStateTest, QuantilesOfEachFeatureThenConfigurationThenSlope) {
  const ConfigurationSpace space(4, {kUnbounded, 0, 4});
  AgentObservation observation;
  // Unsorted on purpose: each feature is sorted on its own.
  observation.features = {{2.0, 4.0}, {0.5, 1.0}, {1.0, 0.5}};
  observation.current = {2, 0};
  observation.loss_slope = -3.0;
  const std::vector<float> state = state_vector(observation, space);
  ASSERT_EQ(state.size(), state_size(space));
  ASSERT_EQ(state.size(), 2 * kStateQuantiles + 1 + 3 + 1);
  // Step times 0.5, 1, 2: quantile 3/7 sits 6/7 of the way from 0.5 to 1.
  EXPECT_FLOAT_EQ(state[0], -1.0F);
  EXPECT_FLOAT_EQ(state[3], static_cast<float>(std::log2(0.5 + 6.0 / 7 * 0.5)));
  EXPECT_FLOAT_EQ(state[7], 1.0F);
  // Round trips 0.5, 1, 4.
  EXPECT_FLOAT_EQ(state[8], -1.0F);
  EXPECT_FLOAT_EQ(state[15], 2.0F);
  EXPECT_FLOAT_EQ(state[16], 0.5F) << "K / K_max";
  EXPECT_EQ((std::vector<float>(state.begin() + 17, state.begin() + 20)),
            (std::vector<float>{0, 1, 0}));
  EXPECT_FLOAT_EQ(state[20], -1.0F) << "the slope, clamped";
}

TEST(AgentStateTest, ExtremeFeaturesAreClampedAndAZeroRoundTripIsTheFloor) {
  const ConfigurationSpace space(1, {kUnbounded});
  AgentObservation observation;
  observation.features = {{100.0, 0.0}};
  const std::vector<float> state = state_vector(observation, space);
  EXPECT_FLOAT_EQ(state[0], static_cast<float>(kLogFeatureLimit));
  EXPECT_FLOAT_EQ(state[kStateQuantiles], static_cast<float>(-kLogFeatureLimit));
  EXPECT_FLOAT_EQ(state[2 * kStateQuantiles + 1], 1.0F) << "unbounded is the current bound";
  observation.features = {{1.0}};
  EXPECT_THROW(state_vector(observation, space), std::invalid_argument);
}

TEST(AgentRewardTest, LossDecreasePerSecondMinusPricedServerTraffic) {
  // (2 − 1) / 2 s − 1e-10 × 4e9 B / 2 s = 0.5 − 0.2
  EXPECT_DOUBLE_EQ(decision_reward({2.0, 2.0, 1.0, 4e9}, 1e-10), 0.3);
  EXPECT_DOUBLE_EQ(decision_reward({0.5, 1.0, 1.25, 0}, 1e-10), -0.5);
  EXPECT_THROW(decision_reward({0.0, 2.0, 1.0, 0}, 0), std::invalid_argument);
}

// Four workers: 0 and 1 fast (1 s steps), 2 and 3 slow (4 s), all on alike links.
UpdateInfo profiled_step(int worker, int id, double loss, double now = 0,
                         std::vector<int> members = {}) {
  constexpr double step_seconds[] = {1.0, 1.0, 4.0, 4.0};
  UpdateInfo update;
  update.worker = worker;
  update.id = id;
  update.compute_seconds = step_seconds[worker];
  update.comm_seconds = 0.1;
  update.train_loss = loss;
  update.now = now;
  if (!members.empty()) update.merged_step_seconds.push_back(step_seconds[worker]);
  for (int member : members) update.merged_step_seconds.push_back(step_seconds[member]);
  update.members = std::move(members);
  return update;
}

TEST(PetrelAgentTest, TheAgentSeesTheProfileAndItsChoiceGroupsAndBounds) {
  auto agent =
      std::make_shared<ScriptedAgent>(std::vector<CommunityConfiguration>{{2, 0}, {1, kUnbounded}});
  PetrelOptions options;
  options.profile_steps = 1;
  options.window = 1;
  options.regroup_interval_s = 5;
  options.agent = agent;
  Petrel petrel(options);
  RecordingActions actions;
  petrel.start(RunShape{4, 100000, 1, 0.0, 7}, actions);
  for (int w = 0; w < 4; ++w) petrel.on_pull_request(w, actions);
  int id = 0;
  for (int w = 0; w < 4; ++w) push(petrel, actions, profiled_step(w, id++, 2.0));

  ASSERT_EQ(agent->seen.size(), 1u);
  const AgentObservation& first = agent->seen[0];
  EXPECT_EQ(first.features, (Points{{0.4, 1.0}, {0.4, 1.0}, {1.6, 1.0}, {1.6, 1.0}}))
      << "normalized by the median worker";
  EXPECT_EQ(first.current, (CommunityConfiguration{1, kUnbounded}));
  EXPECT_EQ(first.loss_slope, 0.0);
  EXPECT_EQ(first.seed, 7u);
  auto records = actions.events_of_type("regroup");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].details.at("communities"), nlohmann::json({{0, 1}, {2, 3}}));
  EXPECT_EQ(records[1].details.at("staleness"), 0);

  // Staleness 0: the fast community closes its round, then waits for the slow one.
  actions.take_replied_workers();
  push(petrel, actions, profiled_step(0, id++, 1.0, 1.0, {1}));
  EXPECT_EQ(actions.take_replied_workers(), std::vector<int>{}) << "held by the bound";
  // The slow round releases it; past the regroup interval, the profiling regroup then waits
  // for the fast community's new round.
  push(petrel, actions, profiled_step(2, id++, 1.0, 6.0, {3}));
  EXPECT_THAT(actions.take_replied_workers(), ::testing::UnorderedElementsAre(0, 1));
  EXPECT_EQ(actions.events_of_type("regroup").size(), 2u);
  push(petrel, actions, profiled_step(0, id++, 1.0, 7.0, {1}));
  records = actions.events_of_type("regroup");
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[2].details.at("reason"), "profile");
  for (int w = 0; w < 4; ++w) push(petrel, actions, profiled_step(w, id++, 1.0, 8.0));
  ASSERT_EQ(agent->seen.size(), 2u);
  EXPECT_EQ(agent->seen[1].current, (CommunityConfiguration{2, 0}));
  EXPECT_DOUBLE_EQ(agent->seen[1].loss_slope, -0.5) << "mean loss 2, then 1";
  EXPECT_DOUBLE_EQ(agent->seen[1].now, 8.0);
  records = actions.events_of_type("regroup");
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[3].details.at("communities"), nlohmann::json({{0, 1, 2, 3}}));
  EXPECT_EQ(records[3].details.at("staleness"), -1);
}

TEST(PetrelAgentTest, LearnedWithoutAFileNamesBothKeys) {
  try {
    make_protocol("petrel", {{"agent", std::string("learned")}});
    FAIL() << "a learned agent without a file was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("protocol.agent = \"learned\" needs protocol.agent_file"));
  }
  try {
    make_protocol("petrel", {{"agent_file", std::string("agent.pt")}});
    FAIL() << "a file for the heuristic agent was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("protocol.agent_file = \"agent.pt\" is for protocol.agent "
                                        "= \"learned\"; the agent is \"heuristic\""));
  }
}

}  // namespace
}  // namespace hetps::protocol
