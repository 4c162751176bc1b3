#include <gtest/gtest.h>

#include "protocol/petrel.h"
#include "protocol/registry.h"
#include "support/protocol_driving.h"
#include "support/recording_actions.h"

namespace hetps::protocol {
namespace {

using testing::make_protocol;
using testing::push;
using testing::RecordingActions;

// A worker's update after one step of `step_seconds`, its push and pull taking `round_trip`.
UpdateInfo step_of(int worker, int id, double step_seconds, double round_trip, double now = 0,
                   std::vector<int> members = {}) {
  UpdateInfo update;
  update.worker = worker;
  update.id = id;
  update.steps = 1;
  update.compute_seconds = step_seconds;
  update.comm_seconds = round_trip;
  update.now = now;
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
  auto petrel = make_protocol("petrel", {{"profile_steps", 1.0}});
  RecordingActions actions;
  petrel->start(RunShape{4, 100000, 1, 0.0, 7}, actions);
  for (int w = 0; w < 4; ++w) petrel->on_pull_request(w, actions);
  int id = profile(*petrel, actions, 1);
  const size_t applied_before = actions.applied.size();
  for (int r = 0; r < 3; ++r) push(*petrel, actions, step_of(1, id++, 1.0, 0.1, 1.0, {0}));
  EXPECT_EQ(actions.applied.size(), applied_before + 3);
  for (size_t a = applied_before; a < actions.applied.size(); ++a) {
    EXPECT_EQ(actions.applied[a].update_ids.size(), 1u);
  }
}

TEST(PetrelTest, EveryRegroupIntervalTheWorkersAreProfiledAgain) {
  auto petrel = make_protocol("petrel", {{"profile_steps", 1.0}, {"regroup_interval", 5.0}});
  RecordingActions actions;
  petrel->start(RunShape{4, 100000, 1, 0.0, 7}, actions);
  for (int w = 0; w < 4; ++w) petrel->on_pull_request(w, actions);
  int id = profile(*petrel, actions, 1);
  ASSERT_EQ(actions.events_of_type("regroup").size(), 2u);
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
  // Profiled again, the same communities come back.
  profile(*petrel, actions, 1, id);
  ASSERT_EQ(actions.events_of_type("regroup").size(), 4u);
  EXPECT_EQ(actions.events_of_type("regroup")[3].details.at("communities"),
            nlohmann::json({{1, 0}, {3, 2}}));
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

TEST(PetrelTest, ADeadWorkerLeavesItsCommunity) {
  auto petrel =
      make_protocol("petrel", {{"profile_steps", 1.0}, {"aggregate_at", std::string("server")}});
  RecordingActions actions;
  petrel->start(RunShape{4, 100000, 1, 0.0, 7}, actions);
  for (int w = 0; w < 4; ++w) petrel->on_pull_request(w, actions);
  int id = profile(*petrel, actions, 1);
  petrel->on_worker_failed(0, actions);
  const size_t applied_before = actions.applied.size();
  push(*petrel, actions, step_of(1, id++, 1.0, 0.1));
  ASSERT_EQ(actions.applied.size(), applied_before + 1) << "worker 1 is its community alone now";
  EXPECT_EQ(actions.applied.back().update_ids.size(), 1u);
}

TEST(PetrelTest, SavedStateRestoresTheCommunitiesAndTheProfile) {
  auto petrel = make_protocol("petrel", {{"profile_steps", 1.0}});
  RecordingActions actions;
  petrel->start(RunShape{4, 100000, 1, 0.0, 7}, actions);
  for (int w = 0; w < 4; ++w) petrel->on_pull_request(w, actions);
  int id = profile(*petrel, actions, 1);
  push(*petrel, actions, step_of(1, id++, 1.0, 0.1, 1.0, {0}));
  auto restored = make_protocol("petrel", {{"profile_steps", 1.0}});
  RecordingActions ignored;
  restored->start(RunShape{4, 100000, 1, 0.0, 7}, ignored);
  restored->restore_state(petrel->save_state());
  EXPECT_EQ(restored->save_state(), petrel->save_state());
}

}  // namespace
}  // namespace hetps::protocol
