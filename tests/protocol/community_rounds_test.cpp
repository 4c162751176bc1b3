#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "protocol/community_rounds.h"
#include "support/recording_actions.h"

namespace hetps::protocol {
namespace {

using testing::RecordingActions;

UpdateInfo update_of(int worker, int id, std::vector<int> members = {}) {
  UpdateInfo update;
  update.worker = worker;
  update.id = id;
  update.members = std::move(members);
  return update;
}

// Every worker asks for its first pull.
void pull_all(CommunityRounds& rounds, RecordingActions& actions, int workers) {
  for (int w = 0; w < workers; ++w) rounds.on_pull_request(w, actions);
}

// An update arrives and its worker (and, for a leader, its members) pull again, as every
// engine does.
void push(CommunityRounds& rounds, RecordingActions& actions, const UpdateInfo& update) {
  rounds.on_update(update, actions);
  rounds.on_pull_request(update.worker, actions);
  for (int member : update.members) rounds.on_pull_request(member, actions);
}

const RecordingActions::Reply& reply_to(const RecordingActions& actions, int worker) {
  for (auto it = actions.replies.rbegin(); it != actions.replies.rend(); ++it) {
    if (it->worker == worker) return *it;
  }
  throw std::logic_error("no reply to worker " + std::to_string(worker));
}

TEST(CommunityRoundsTest, ALeaderGathersItsMembersAndOneUpdatePerRoundIsApplied) {
  CommunityRounds rounds(5, kUnbounded, {{{1, 0, 2}, {4, 3}}, true});
  RecordingActions actions;
  pull_all(rounds, actions, 5);
  EXPECT_EQ(actions.take_replied_workers(), (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(reply_to(actions, 1).plan.gather_from, (std::vector<int>{0, 2}));
  EXPECT_EQ(reply_to(actions, 0).plan.send_to, 1);
  EXPECT_EQ(reply_to(actions, 2).plan.send_to, 1);
  EXPECT_EQ(reply_to(actions, 4).plan.gather_from, (std::vector<int>{3}));
  EXPECT_EQ(reply_to(actions, 3).plan.send_to, 4);

  push(rounds, actions, update_of(1, 10, {0, 2}));
  ASSERT_EQ(actions.applied.size(), 1u);
  EXPECT_EQ(actions.applied[0].update_ids, (std::vector<int>{10}));
  // The leader's mean counts for its community's share of the workers: 3 of 5.
  EXPECT_EQ(actions.applied[0].weights, (std::vector<double>{0.6}));
  EXPECT_EQ(actions.take_replied_workers(), (std::vector<int>{0, 1, 2}))
      << "the first community goes on without waiting for the second";
  EXPECT_EQ(rounds.rounds(), (std::vector<int64_t>{1, 0}));
}

// ... weighted by the community's share of the workers (2 of 4 here), as a leader's round is.
TEST(CommunityRoundsTest, AtTheServerACommunityRoundAppliesExactlyTheMeanOfItsMembers) {
  CommunityRounds rounds(4, kUnbounded, {{{0, 2}, {1, 3}}, false});
  RecordingActions actions;
  pull_all(rounds, actions, 4);
  for (const auto& reply : actions.replies) EXPECT_EQ(reply.plan, WorkerPlan{});
  actions.take_replied_workers();
  push(rounds, actions, update_of(2, 20));
  push(rounds, actions, update_of(1, 21));
  EXPECT_TRUE(actions.applied.empty());
  push(rounds, actions, update_of(0, 22));
  ASSERT_EQ(actions.applied.size(), 1u);
  EXPECT_EQ(actions.applied[0].update_ids, (std::vector<int>{22, 20}));  // in worker order
  EXPECT_EQ(actions.applied[0].weights, (std::vector<double>{0.25, 0.25}));
  EXPECT_EQ(actions.take_replied_workers(), (std::vector<int>{0, 2}));
}

TEST(CommunityRoundsTest, OneCommunityAtTheServerIsBsp) {
  CommunityRounds rounds(3, kUnbounded, {{{0, 1, 2}}, false});
  RecordingActions actions;
  pull_all(rounds, actions, 3);
  push(rounds, actions, update_of(2, 1));
  push(rounds, actions, update_of(0, 2));
  push(rounds, actions, update_of(1, 3));
  ASSERT_EQ(actions.applied.size(), 1u);
  EXPECT_EQ(actions.applied[0].update_ids, (std::vector<int>{2, 3, 1}));
  for (double weight : actions.applied[0].weights) EXPECT_DOUBLE_EQ(weight, 1.0 / 3.0);
}

TEST(CommunityRoundsTest, AnUnboundedSlowCommunityNeverBlocksAFastOne) {
  CommunityRounds rounds(2, kUnbounded, {{{0}, {1}}, true});
  RecordingActions actions;
  pull_all(rounds, actions, 2);
  for (int id = 0; id < 10; ++id) push(rounds, actions, update_of(0, id));
  EXPECT_EQ(rounds.rounds(), (std::vector<int64_t>{10, 0}));
  EXPECT_EQ(actions.applied.size(), 10u);
}

TEST(CommunityRoundsTest, TheStalenessBoundHoldsAFastCommunity) {
  CommunityRounds rounds(2, 2, {{{0}, {1}}, true});
  RecordingActions actions;
  pull_all(rounds, actions, 2);
  actions.take_replied_workers();
  for (int id = 0; id < 3; ++id) push(rounds, actions, update_of(0, id));
  // Rounds 1 and 2 started (0 − 0 ≤ 2 ... 2 − 0 ≤ 2); round 3 waits for community 1.
  EXPECT_EQ(actions.take_replied_workers(), (std::vector<int>{0, 0}));
  EXPECT_EQ(rounds.rounds(), (std::vector<int64_t>{3, 0}));
  push(rounds, actions, update_of(1, 100));
  EXPECT_EQ(actions.take_replied_workers(), (std::vector<int>{0, 1}))
      << "community 1's round lets community 0 start its next";
  EXPECT_EQ(rounds.rounds(), (std::vector<int64_t>{3, 1}));
}

// Community 1's only member dies: its rounds stop for good, and no longer bound community 0's.
TEST(CommunityRoundsTest, ACommunityWhoseMembersAllDiedHoldsNoOtherBack) {
  CommunityRounds rounds(2, 2, {{{0}, {1}}, true});
  RecordingActions actions;
  pull_all(rounds, actions, 2);
  rounds.on_worker_failed(1, actions);
  actions.take_replied_workers();
  for (int id = 0; id < 10; ++id) push(rounds, actions, update_of(0, id));
  EXPECT_EQ(actions.take_replied_workers(), std::vector<int>(10, 0));
  EXPECT_EQ(rounds.rounds(), (std::vector<int64_t>{10, 0}));
}

TEST(CommunityRoundsTest, ARegroupWaitsForTheRoundsInProgressAndLosesNoUpdate) {
  CommunityRounds rounds(4, kUnbounded, {{{0, 1}, {2, 3}}, false});
  RecordingActions actions;
  pull_all(rounds, actions, 4);
  actions.take_replied_workers();
  push(rounds, actions, update_of(0, 1));
  rounds.regroup({{{0, 2}, {1, 3}}, false}, actions);
  EXPECT_TRUE(rounds.quiescing());
  EXPECT_EQ(rounds.grouping().communities, (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
  push(rounds, actions, update_of(2, 2));
  push(rounds, actions, update_of(3, 3));
  EXPECT_EQ(actions.take_replied_workers(), std::vector<int>{})
      << "no new round while the regroup waits";
  push(rounds, actions, update_of(1, 4));
  // Both old rounds were applied whole; then the new communities start together.
  ASSERT_EQ(actions.applied.size(), 2u);
  EXPECT_EQ(actions.applied[0].update_ids, (std::vector<int>{2, 3}));
  EXPECT_EQ(actions.applied[1].update_ids, (std::vector<int>{1, 4}));
  EXPECT_FALSE(rounds.quiescing());
  EXPECT_EQ(rounds.grouping().communities, (std::vector<std::vector<int>>{{0, 2}, {1, 3}}));
  EXPECT_EQ(actions.take_replied_workers(), (std::vector<int>{0, 2, 1, 3}));
  EXPECT_EQ(rounds.rounds(), (std::vector<int64_t>{0, 0}));
  EXPECT_TRUE(actions.discarded.empty());
}

TEST(CommunityRoundsTest, ADeadLeadersRoundIsGivenUpAndTheNextMemberLeads) {
  CommunityRounds rounds(3, kUnbounded, {{{1, 0, 2}}, true});
  RecordingActions actions;
  pull_all(rounds, actions, 3);
  actions.take_replied_workers();
  rounds.on_worker_failed(1, actions);
  EXPECT_EQ(rounds.grouping().communities, (std::vector<std::vector<int>>{{0, 2}}));
  // The engine sends the members back: their pulls start the next round under worker 0.
  rounds.on_pull_request(2, actions);
  rounds.on_pull_request(0, actions);
  EXPECT_EQ(actions.take_replied_workers(), (std::vector<int>{0, 2}));
  EXPECT_EQ(reply_to(actions, 0).plan.gather_from, (std::vector<int>{2}));
  EXPECT_EQ(reply_to(actions, 2).plan.send_to, 0);
  // The dead leader's late update is not applied.
  rounds.on_update(update_of(1, 7, {0, 2}), actions);
  EXPECT_EQ(actions.discarded, (std::vector<int>{7}));
}

TEST(CommunityRoundsTest, ADeadMemberLeavesTheBarrierAtTheServer) {
  CommunityRounds rounds(3, kUnbounded, {{{0, 1, 2}}, false});
  RecordingActions actions;
  pull_all(rounds, actions, 3);
  push(rounds, actions, update_of(0, 1));
  push(rounds, actions, update_of(1, 2));
  rounds.on_worker_failed(2, actions);
  ASSERT_EQ(actions.applied.size(), 1u);
  EXPECT_EQ(actions.applied[0].update_ids, (std::vector<int>{1, 2}));
}

TEST(CommunityRoundsTest, AGroupingMustPlaceEveryLiveWorkerOnce) {
  EXPECT_THAT(
      [] {
        CommunityRounds(3, kUnbounded, {{{0, 1}}, true});
      },
      ::testing::ThrowsMessage<std::invalid_argument>(
          ::testing::HasSubstr("leaves out live worker 2")));
  EXPECT_THAT(
      [] {
        CommunityRounds(2, kUnbounded, {{{0, 1}, {1}}, true});
      },
      ::testing::ThrowsMessage<std::invalid_argument>(
          ::testing::HasSubstr("places worker 1 twice")));
  EXPECT_THAT(
      [] {
        CommunityRounds(2, kUnbounded, {{{0, 1, 2}}, true});
      },
      ::testing::ThrowsMessage<std::invalid_argument>(::testing::HasSubstr("names worker 2 of 2")));
}

TEST(CommunityRoundsTest, SavedStateRestoresMidRound) {
  CommunityRounds rounds(4, 3, {{{0, 2}, {1, 3}}, false});
  RecordingActions actions;
  pull_all(rounds, actions, 4);
  push(rounds, actions, update_of(0, 5));
  rounds.regroup({{{0, 1, 2, 3}}, false}, actions);
  CommunityRounds restored(4, 3, {{{0, 1, 2, 3}}, true});
  restored.restore_state(rounds.save_state());
  EXPECT_EQ(restored.save_state(), rounds.save_state());
  // Both finish the round the same way.
  RecordingActions original_actions;
  RecordingActions restored_actions;
  push(rounds, original_actions, update_of(2, 6));
  push(restored, restored_actions, update_of(2, 6));
  ASSERT_EQ(restored_actions.applied.size(), 1u);
  EXPECT_EQ(restored_actions.applied[0].update_ids, original_actions.applied[0].update_ids);
  EXPECT_EQ(restored.save_state(), rounds.save_state());
}

// Each of these would have routed a pull through community_of_ out of bounds.
TEST(CommunityRoundsTest, RefusesASavedStateWhoseIdsDoNotFitTheRun) {
  CommunityRounds rounds(4, 3, {{{0, 2}, {1, 3}}, false});
  const nlohmann::json saved = rounds.save_state();
  const auto refusal = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json edited = saved;
    edit(edited);
    CommunityRounds restored(4, 3, {{{0, 1, 2, 3}}, false});
    try {
      restored.restore_state(edited);
    } catch (const std::invalid_argument& refused) {
      return std::string(refused.what());
    }
    return std::string("restored");
  };
  const std::string prefix = "community rounds of 4 workers: the saved state ";
  EXPECT_EQ(refusal([](nlohmann::json& s) { s["live"].push_back(4); }),
            prefix + "names worker 4 of 4 among its live workers");
  EXPECT_EQ(refusal([](nlohmann::json& s) { s["communities"][0]["members"].push_back(-1); }),
            prefix + "names worker -1 of 4 in its communities");
  EXPECT_EQ(refusal([](nlohmann::json& s) { s["communities"][0]["members"].push_back(1); }),
            prefix + "places worker 1 twice in its communities");
  EXPECT_EQ(refusal([](nlohmann::json& s) { s["communities"].erase(1); }),
            prefix + "leaves live worker 1 out of every community");
  EXPECT_EQ(refusal([](nlohmann::json& s) { s["communities"][0]["held"] = {1}; }),
            prefix + "holds a pull or an update of a worker outside its community");
  const auto pending = [](std::vector<std::vector<int>> communities) {
    return [communities](nlohmann::json& s) {
      s["pending"] = {{"communities", communities}, {"aggregate_at_leader", false}};
    };
  };
  EXPECT_EQ(refusal(pending({{0, 1, 2, 3}})), "restored");
  EXPECT_EQ(refusal(pending({{0, 1}, {2, 4}})),
            prefix + "names worker 4 of 4 in its pending grouping");
  EXPECT_EQ(refusal(pending({{0, 1}, {1, 2, 3}})),
            prefix + "places worker 1 twice in its pending grouping");
}

}  // namespace
}  // namespace hetps::protocol
