#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "protocol/petrel.h"
#include "protocol/registry.h"
#include "support/protocol_driving.h"
#include "support/recording_actions.h"

namespace hetps::protocol {
namespace {

using testing::make_protocol;
using testing::push;
using testing::RecordingActions;

// A worker's update after one step of `step_seconds`, its push and pull taking `round_trip`;
// with `members`, a leader's merged update, each member's step as long as the leader's unless
// `member_step_seconds` says otherwise.
UpdateInfo step_of(int worker, int id, double step_seconds, double round_trip, double now = 0,
                   std::vector<int> members = {}, std::vector<double> member_step_seconds = {}) {
  UpdateInfo update;
  update.worker = worker;
  update.id = id;
  update.steps = 1;
  update.compute_seconds = step_seconds;
  update.comm_seconds = round_trip;
  update.now = now;
  if (!members.empty()) {
    if (member_step_seconds.empty()) member_step_seconds.assign(members.size(), step_seconds);
    update.merged_step_seconds = {step_seconds};
    update.merged_step_seconds.insert(update.merged_step_seconds.end(), member_step_seconds.begin(),
                                      member_step_seconds.end());
  }
  update.members = std::move(members);
  return update;
}

// Four workers: two fast (steps of 1 s), two slow (4 s); worker 1 and worker 3 have the
// faster links of their pairs.
constexpr double kStep[] = {1.0, 1.0, 4.0, 4.0};
constexpr double kRoundTrip[] = {0.11, 0.10, 0.11, 0.10};

// Runs `rounds` BSP rounds of the profiling, every worker pushing once per round.
int profile(Protocol& petrel, RecordingActions& actions, int rounds, int next_id = 0) {
  for (int r = 0; r < rounds; ++r) {
    for (int w = 0; w < 4; ++w)
      push(petrel, actions, step_of(w, next_id++, kStep[w], kRoundTrip[w]));
  }
  return next_id;
}

// Petrel with `params` on the four workers above, started, every worker's first pull
// answered, and profiled for one round: the first decision made.
struct ProfiledPetrel {
  explicit ProfiledPetrel(const config::ProtocolParams& params)
      : petrel(make_protocol("petrel", params)) {
    petrel->start(RunShape{4, 100000, 1, 0.0, 7}, actions);
    for (int w = 0; w < 4; ++w) petrel->on_pull_request(w, actions);
    next_id = profile(*petrel, actions, 1);
  }
  std::unique_ptr<Protocol> petrel;
  RecordingActions actions;
  int next_id = 0;
};

TEST(PetrelTest, ProfilesAsBspThenGroupsAlikeWorkersUnderTheirFastestLink) {
  auto petrel = make_protocol("petrel", {{"profile_steps", 2.0}});
  RecordingActions actions;
  petrel->start(RunShape{4, 100000, 1, 0.0, 7}, actions);
  for (int w = 0; w < 4; ++w) petrel->on_pull_request(w, actions);
  EXPECT_EQ(actions.take_replied_workers(), (std::vector<int>{0, 1, 2, 3}));
  for (const auto& reply : actions.replies) EXPECT_EQ(reply.plan, WorkerPlan{});

  profile(*petrel, actions, 2);
  ASSERT_EQ(actions.applied.size(), 2u);
  for (const ApplyOrder& order : actions.applied) EXPECT_EQ(order.update_ids.size(), 4u);

  const auto records = actions.events_of_type("regroup");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].details.at("reason"), "profile");
  EXPECT_EQ(records[0].details.at("communities"), nlohmann::json({{0, 1, 2, 3}}));
  EXPECT_EQ(records[0].details.at("aggregate_at"), "server");
  EXPECT_EQ(records[1].details.at("reason"), "profiled");
  EXPECT_EQ(records[1].details.at("communities"), nlohmann::json({{1, 0}, {3, 2}}));
  EXPECT_EQ(records[1].details.at("leaders"), nlohmann::json({1, 3}));
  EXPECT_EQ(records[1].details.at("aggregate_at"), "leader");
  EXPECT_TRUE(records[1].details.contains("silhouette"));

  // The communities' first rounds: each leader gathers its member.
  const auto& replies = actions.replies;
  auto plan_of = [&](int worker) {
    for (auto it = replies.rbegin(); it != replies.rend(); ++it) {
      if (it->worker == worker) return it->plan;
    }
    return WorkerPlan{};
  };
  EXPECT_EQ(plan_of(1).gather_from, (std::vector<int>{0}));
  EXPECT_EQ(plan_of(0).send_to, 1);
  EXPECT_EQ(plan_of(3).gather_from, (std::vector<int>{2}));
  EXPECT_EQ(plan_of(2).send_to, 3);
}

TEST(PetrelTest, AFastCommunityRunsAheadOfASlowOneWithOnePushPerRound) {
  ProfiledPetrel started({{"profile_steps", 1.0}});
  auto& [petrel, actions, id] = started;
  const size_t applied_before = actions.applied.size();
  for (int r = 0; r < 3; ++r) push(*petrel, actions, step_of(1, id++, 1.0, 0.1, 1.0, {0}));
  EXPECT_EQ(actions.applied.size(), applied_before + 3);
  for (size_t a = applied_before; a < actions.applied.size(); ++a) {
    EXPECT_EQ(actions.applied[a].update_ids.size(), 1u);
  }
}

TEST(PetrelTest, EveryRegroupIntervalTheWorkersAreProfiledAgain) {
  ProfiledPetrel started({{"profile_steps", 1.0}, {"regroup_interval", 5.0}});
  auto& [petrel, actions, id] = started;
  ASSERT_EQ(actions.events_of_type("regroup").size(), 2u);
  const int first_leader_update = id;
  push(*petrel, actions, step_of(1, id++, 1.0, 0.1, 2.0, {0}));
  EXPECT_EQ(actions.events_of_type("regroup").size(), 2u);
  push(*petrel, actions, step_of(1, id++, 1.0, 0.1, 6.0, {0}));
  // The slow community still computes: the regroup waits for its round.
  EXPECT_EQ(actions.events_of_type("regroup").size(), 2u);
  push(*petrel, actions, step_of(3, id++, 4.0, 0.1, 7.0, {2}));
  const auto records = actions.events_of_type("regroup");
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[2].details.at("reason"), "profile");
  EXPECT_EQ(records[2].details.at("communities"), nlohmann::json({{0, 1, 2, 3}}));
  // The regroup lost no leader's update: each of the three is applied, once.
  EXPECT_TRUE(actions.discarded.empty());
  for (int update = first_leader_update; update < id; ++update) {
    EXPECT_EQ(std::ranges::count_if(actions.applied,
                                    [&](const ApplyOrder& order) {
                                      return std::ranges::count(order.update_ids, update) == 1;
                                    }),
              1)
        << "update " << update;
  }
  // Profiled again, the same communities come back.
  profile(*petrel, actions, 1, id);
  ASSERT_EQ(actions.events_of_type("regroup").size(), 4u);
  EXPECT_EQ(actions.events_of_type("regroup")[3].details.at("communities"),
            nlohmann::json({{1, 0}, {3, 2}}));
}

// Rounds of every worker pushing at the server (aggregate_at = "server") until a `drift`
// regroup is recorded, worker 0's step in round r taking `worker_0_step(r)`; the records of
// the regroups.
std::vector<ProtocolEvent> rounds_until_drift(const std::function<double(int)>& worker_0_step,
                                              int rounds) {
  ProfiledPetrel started(
      {{"profile_steps", 1.0}, {"aggregate_at", std::string("server")}, {"window", 1.0}});
  auto& [petrel, actions, id] = started;
  for (int r = 0; r < rounds && actions.events_of_type("regroup").size() < 3; ++r) {
    for (int w = 0; w < 4; ++w) {
      push(*petrel, actions, step_of(w, id++, w == 0 ? worker_0_step(r) : kStep[w], kRoundTrip[w]));
    }
  }
  return actions.events_of_type("regroup");
}

TEST(PetrelTest, AWorkerWhoseStepTimeDriftsIsRegroupedWithoutWaitingForTheInterval) {
  const auto records = rounds_until_drift([](int) { return 4.0; }, 8);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[1].details.at("communities"), nlohmann::json({{1, 0}, {3, 2}}));
  EXPECT_EQ(records[2].details.at("reason"), "drift");
  // Features are relative to the median worker's: as worker 0 slows, the median rises and the
  // others' change too, but less.
  EXPECT_EQ(records[2].details.at("worker"), 0);
  EXPECT_DOUBLE_EQ(records[2].details.at("drift").get<double>(), 1.5) << "from 0.4 to 1";
  EXPECT_EQ(records[2].details.at("communities"), nlohmann::json({{3, 0, 2}, {1}}));
}

// Drift is up or down: worker 0's round trip falls from 0.11 s to 0.05 s, its feature from
// 0.11 / 0.105 (of the median) to 0.05 / 0.1, and with the fastest link it leads its community.
TEST(PetrelTest, AWorkerWhoseLinkSpeedsUpIsRegroupedForDrift) {
  ProfiledPetrel started(
      {{"profile_steps", 1.0}, {"aggregate_at", std::string("server")}, {"window", 1.0}});
  auto& [petrel, actions, id] = started;
  for (int r = 0; r < 8 && actions.events_of_type("regroup").size() < 3; ++r) {
    for (int w = 0; w < 4; ++w) {
      push(*petrel, actions, step_of(w, id++, kStep[w], w == 0 ? 0.05 : kRoundTrip[w]));
    }
  }
  const auto records = actions.events_of_type("regroup");
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[2].details.at("reason"), "drift");
  EXPECT_EQ(records[2].details.at("worker"), 0);
  EXPECT_NEAR(records[2].details.at("drift").get<double>(), (0.11 / 0.105) / 0.5 - 1, 1e-9);
  EXPECT_EQ(records[2].details.at("communities"), nlohmann::json({{0, 1}, {3, 2}}));
}

TEST(PetrelTest, SteadyWorkersAreNotRegroupedForDrift) {
  // Worker 0's step wavers by 30%: its feature by less than the threshold's factor 1.5.
  EXPECT_EQ(rounds_until_drift([](int r) { return r % 2 == 0 ? 1.3 : 1.0; }, 8).size(), 2u);
}

TEST(PetrelTest, ALeadersUpdateFeedsItsMembersStepTimesToTheProfile) {
  ProfiledPetrel started({{"profile_steps", 1.0}, {"window", 4.0}});
  auto& [petrel, actions, id] = started;
  int rounds = 0;
  while (rounds < 8 && actions.events_of_type("regroup").size() < 3) {
    push(*petrel, actions, step_of(1, id++, 1.0, 0.1, 1.0, {0}, {4.0}));
    push(*petrel, actions, step_of(3, id++, 4.0, 0.1, 1.0, {2}));
    ++rounds;
  }
  const auto records = actions.events_of_type("regroup");
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[2].details.at("reason"), "drift") << "only member 0's step time changed";
  // Drift counts from round 4, once every window of 4 holds samples from after the decision
  // (workers 2 and 3 too, at leader 3's push); the regroup then waits for community {1, 0} to
  // close the round it started.
  EXPECT_EQ(rounds, 5);
}

// A leader's round trip grows with the models it relays to its members: that is its role, not
// a change of its link, and no drift.
TEST(PetrelTest, ALeadersLongerRoundTripIsNoDrift) {
  ProfiledPetrel started({{"profile_steps", 1.0}, {"window", 2.0}});
  auto& [petrel, actions, id] = started;
  for (int r = 0; r < 6; ++r) {
    push(*petrel, actions, step_of(1, id++, 1.0, 10 * kRoundTrip[1], 1.0, {0}));
    push(*petrel, actions, step_of(3, id++, 4.0, 10 * kRoundTrip[3], 1.0, {2}));
  }
  EXPECT_EQ(actions.events_of_type("regroup").size(), 2u);
}

TEST(PetrelTest, ALeadersUpdateWithoutItsMembersStepTimesIsAnEngineError) {
  ProfiledPetrel started({{"profile_steps", 1.0}});
  auto& [petrel, actions, id] = started;
  UpdateInfo update = step_of(1, id, 1.0, 0.1, 1.0, {0});
  update.merged_step_seconds.pop_back();
  EXPECT_THROW(petrel->on_update(update, actions), std::logic_error);
}

TEST(PetrelTest, AfterADeathTheSurvivorsAreProfiledAndGroupedAgain) {
  ProfiledPetrel started(
      {{"profile_steps", 1.0}, {"aggregate_at", std::string("server")}, {"regroup_interval", 5.0}});
  auto& [petrel, actions, id] = started;
  petrel->on_worker_failed(0, actions);
  // At once the agent groups the survivors; past the interval they profile as BSP, then the
  // agent groups them again.
  for (int r = 0; r < 3; ++r) {
    for (int w = 1; w < 4; ++w) push(*petrel, actions, step_of(w, id++, kStep[w], 0.1, 6.0));
  }
  const auto records = actions.events_of_type("regroup");
  ASSERT_EQ(records.size(), 5u);
  EXPECT_EQ(records[2].details.at("reason"), "failure");
  EXPECT_EQ(records[2].details.at("worker"), 0);
  EXPECT_EQ(records[2].details.at("communities"), nlohmann::json({{1}, {3, 2}}));
  EXPECT_EQ(records[3].details.at("reason"), "profile");
  EXPECT_EQ(records[3].details.at("communities"), nlohmann::json({{1, 2, 3}}));
  EXPECT_EQ(records[4].details.at("reason"), "profiled");
  EXPECT_EQ(records[4].details.at("communities"), nlohmann::json({{1}, {3, 2}}));
}

// A dead worker's community shrinks, and so does its weight: it counts for its share of the
// live workers.
TEST(PetrelTest, ACommunitysRoundCountsForItsShareOfTheLiveWorkers) {
  ProfiledPetrel started({{"profile_steps", 1.0}, {"aggregate_at", std::string("server")}});
  auto& [petrel, actions, id] = started;
  push(*petrel, actions, step_of(2, id++, 4.0, 0.1));
  push(*petrel, actions, step_of(3, id++, 4.0, 0.1));
  EXPECT_EQ(actions.applied.back().weights, (std::vector<double>{0.25, 0.25})) << "2 of 4";
  petrel->on_worker_failed(0, actions);
  push(*petrel, actions, step_of(1, id++, 1.0, 0.1));
  ASSERT_EQ(actions.applied.back().weights.size(), 1u);
  EXPECT_DOUBLE_EQ(actions.applied.back().weights[0], 1.0 / 3.0) << "1 of 3";
}

TEST(PetrelTest, AlikeWorkersFormOneCommunity) {
  auto petrel = make_protocol("petrel", {{"profile_steps", 1.0}});
  RecordingActions actions;
  petrel->start(RunShape{3, 100000, 1, 0.0, 7}, actions);
  for (int w = 0; w < 3; ++w) petrel->on_pull_request(w, actions);
  for (int w = 0; w < 3; ++w) push(*petrel, actions, step_of(w, w, 1.0, 0.1 * (3 - w)));
  const auto records = actions.events_of_type("regroup");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].details.at("communities"), nlohmann::json({{2, 0, 1}}));
  EXPECT_FALSE(records[1].details.contains("silhouette"));
}

// grouping = "dbscan": the spec's speed profile (step times 1, 1, 1, 2, 2, 4, links alike) is
// three communities with the default radius, the lone slowest worker one of its own, whatever
// the agent's K (at most 2 here, so k-means could not make them).
TEST(PetrelTest, DbscanGroupsTheSpeedProfileIntoItsThreeSpeeds) {
  auto petrel = make_protocol(
      "petrel",
      {{"profile_steps", 1.0}, {"grouping", std::string("dbscan")}, {"max_communities", 2.0}});
  RecordingActions actions;
  petrel->start(RunShape{6, 100000, 1, 0.0, 7}, actions);
  for (int w = 0; w < 6; ++w) petrel->on_pull_request(w, actions);
  constexpr double kSteps[] = {1, 1, 1, 2, 2, 4};
  for (int w = 0; w < 6; ++w) push(*petrel, actions, step_of(w, w, kSteps[w], 0.1));
  const auto records = actions.events_of_type("regroup");
  ASSERT_EQ(records.size(), 2u);
  auto communities = records[1].details.at("communities").get<std::vector<std::vector<int>>>();
  for (auto& community : communities) std::ranges::sort(community);
  std::ranges::sort(communities);
  EXPECT_EQ(communities, (std::vector<std::vector<int>>{{0, 1, 2}, {3, 4}, {5}}));
}

TEST(PetrelTest, ADeadWorkerLeavesItsCommunity) {
  ProfiledPetrel started({{"profile_steps", 1.0}, {"aggregate_at", std::string("server")}});
  auto& [petrel, actions, id] = started;
  petrel->on_worker_failed(0, actions);
  const size_t applied_before = actions.applied.size();
  push(*petrel, actions, step_of(1, id++, 1.0, 0.1));
  ASSERT_EQ(actions.applied.size(), applied_before + 1) << "worker 1 is its community alone now";
  EXPECT_EQ(actions.applied.back().update_ids.size(), 1u);
}

TEST(PetrelTest, SavedStateRestoresTheCommunitiesAndTheProfile) {
  ProfiledPetrel started({{"profile_steps", 1.0}});
  auto& [petrel, actions, id] = started;
  push(*petrel, actions, step_of(1, id++, 1.0, 0.1, 1.0, {0}));
  auto restored = make_protocol("petrel", {{"profile_steps", 1.0}});
  RecordingActions ignored;
  restored->start(RunShape{4, 100000, 1, 0.0, 7}, ignored);
  restored->restore_state(petrel->save_state());
  EXPECT_EQ(restored->save_state(), petrel->save_state());
}

// drift() reads every feature of a worker's at the last decision.
TEST(PetrelTest, RefusesAStateWhoseDecidedFeaturesAreShort) {
  ProfiledPetrel started({{"profile_steps", 1.0}});
  auto& [petrel, actions, id] = started;
  push(*petrel, actions, step_of(1, id++, 1.0, 0.1, 1.0, {0}));
  nlohmann::json state = petrel->save_state();
  ASSERT_FALSE(state.at("decided_features").empty());
  state["decided_features"][0][1] = nlohmann::json::array();
  auto restored = make_protocol("petrel", {{"profile_steps", 1.0}});
  RecordingActions ignored;
  restored->start(RunShape{4, 100000, 1, 0.0, 7}, ignored);
  EXPECT_THAT([&] { restored->restore_state(state); },
              ::testing::ThrowsMessage<std::invalid_argument>(
                  ::testing::HasSubstr("features of worker 0 at the last decision; expected 2")));
}

}  // namespace
}  // namespace hetps::protocol
