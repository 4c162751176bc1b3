#include <gtest/gtest.h>

#include "protocol/registry.h"
#include "support/protocol_driving.h"
#include "support/recording_actions.h"

namespace hetps::protocol {
namespace {

using testing::make_protocol;
using testing::push;
using testing::RecordingActions;
using testing::update_from;

// Starts `protocol` with `workers` workers, each asking for its first pull.
void start(Protocol& protocol, RecordingActions& actions, int workers) {
  protocol.start(RunShape{workers, 1000, 1}, actions);
  for (int w = 0; w < workers; ++w) protocol.on_pull_request(w, actions);
}

TEST(BspTest, AnswersFirstPullsAtOnceWithVersionZero) {
  auto bsp = make_protocol("bsp");
  RecordingActions actions;
  start(*bsp, actions, 3);
  EXPECT_EQ(actions.take_replied_workers(), (std::vector<int>{0, 1, 2}));
  for (const auto& reply : actions.replies) EXPECT_EQ(reply.version, 0);
}

TEST(BspTest, NeverAppliesAPartialRound) {
  auto bsp = make_protocol("bsp");
  RecordingActions actions;
  start(*bsp, actions, 3);
  actions.take_replied_workers();
  push(*bsp, actions, update_from(2, 10));
  push(*bsp, actions, update_from(0, 11));
  EXPECT_TRUE(actions.applied.empty());
  EXPECT_TRUE(actions.take_replied_workers().empty()) << "pulls must wait for the round";

  push(*bsp, actions, update_from(1, 12));
  ASSERT_EQ(actions.applied.size(), 1u);
  const ApplyOrder& order = actions.applied[0];
  EXPECT_EQ(order.kind, UpdateKind::Gradient);
  EXPECT_EQ(order.update_ids, (std::vector<int>{11, 12, 10}));  // in worker order
  for (double weight : order.weights) EXPECT_DOUBLE_EQ(weight, 1.0 / 3.0);
  EXPECT_EQ(actions.take_replied_workers(), (std::vector<int>{0, 2, 1}));
  for (size_t i = 3; i < actions.replies.size(); ++i) EXPECT_EQ(actions.replies[i].version, 1);
}

TEST(BspTest, NeverWaitsForADeadWorker) {
  auto bsp = make_protocol("bsp");
  RecordingActions actions;
  start(*bsp, actions, 3);
  actions.take_replied_workers();
  push(*bsp, actions, update_from(0, 1));
  push(*bsp, actions, update_from(1, 2));
  bsp->on_worker_failed(2, actions);
  ASSERT_EQ(actions.applied.size(), 1u);
  EXPECT_EQ(actions.applied[0].update_ids, (std::vector<int>{1, 2}));
  EXPECT_DOUBLE_EQ(actions.applied[0].weights[0], 0.5);
  EXPECT_EQ(actions.take_replied_workers(), (std::vector<int>{0, 1}));

  // The next round needs only the two live workers.
  push(*bsp, actions, update_from(1, 3, 1));
  EXPECT_EQ(actions.applied.size(), 1u);
  push(*bsp, actions, update_from(0, 4, 1));
  EXPECT_EQ(actions.applied.size(), 2u);
}

TEST(BspTest, DropsThePendingUpdateOfAWorkerThatDies) {
  auto bsp = make_protocol("bsp");
  RecordingActions actions;
  start(*bsp, actions, 3);
  push(*bsp, actions, update_from(2, 7));
  bsp->on_worker_failed(2, actions);
  EXPECT_EQ(actions.discarded, (std::vector<int>{7}));
  EXPECT_TRUE(actions.applied.empty()) << "two live workers still owe their updates";
  push(*bsp, actions, update_from(0, 8));
  push(*bsp, actions, update_from(1, 9));
  ASSERT_EQ(actions.applied.size(), 1u);
  EXPECT_EQ(actions.applied[0].update_ids, (std::vector<int>{8, 9}));
}

// Worker 2 pushed and waits for the round when it dies: its pull is forgotten with it.
TEST(BspTest, ADeadWorkersHeldPullIsNotAnsweredWhenTheRoundCloses) {
  auto bsp = make_protocol("bsp");
  RecordingActions actions;
  start(*bsp, actions, 3);
  actions.take_replied_workers();
  push(*bsp, actions, update_from(2, 7));
  bsp->on_worker_failed(2, actions);
  EXPECT_NO_THROW(make_protocol("bsp")->restore_state(bsp->save_state()));
  push(*bsp, actions, update_from(0, 8));
  push(*bsp, actions, update_from(1, 9));
  ASSERT_EQ(actions.applied.size(), 1u);
  EXPECT_EQ(actions.take_replied_workers(), (std::vector<int>{0, 1}));
}

TEST(BspTest, DiscardsUpdatesFromDeadWorkersAndNeverAnswersThem) {
  auto bsp = make_protocol("bsp");
  RecordingActions actions;
  start(*bsp, actions, 2);
  actions.take_replied_workers();
  bsp->on_worker_failed(1, actions);
  push(*bsp, actions, update_from(1, 5));
  EXPECT_EQ(actions.discarded, (std::vector<int>{5}));
  EXPECT_TRUE(actions.take_replied_workers().empty());
}

TEST(BspTest, RestoredStateContinuesTheRound) {
  auto bsp = make_protocol("bsp");
  RecordingActions actions;
  start(*bsp, actions, 2);
  push(*bsp, actions, update_from(0, 1));
  auto copy = make_protocol("bsp");
  copy->restore_state(bsp->save_state());
  RecordingActions after;
  push(*copy, after, update_from(1, 2));
  ASSERT_EQ(after.applied.size(), 1u);
  EXPECT_EQ(after.applied[0].update_ids, (std::vector<int>{1, 2}));
  EXPECT_EQ(after.take_replied_workers(), (std::vector<int>{0, 1}));
}

// A restored round answers the pulls it holds: every id in it must be one of the run's workers,
// and the state must be one a run could have reached; else it is refused, and changes nothing.
TEST(BspTest, RefusesASavedRoundThatCannotBeThisRuns) {
  auto bsp = make_protocol("bsp");
  RecordingActions actions;
  start(*bsp, actions, 2);
  push(*bsp, actions, update_from(0, 1));
  const nlohmann::json saved = bsp->save_state();
  const auto refusal = [&](const nlohmann::json& state) -> std::string {
    auto copy = make_protocol("bsp");
    RecordingActions dropped;
    copy->start(RunShape{2, 1000, 1}, dropped);
    const nlohmann::json before = copy->save_state();
    try {
      copy->restore_state(state);
    } catch (const std::invalid_argument& refused) {
      EXPECT_EQ(copy->save_state(), before) << "left untouched";
      return refused.what();
    }
    return "restored";
  };
  EXPECT_EQ(refusal(saved), "restored");
  nlohmann::json beyond = saved;
  beyond["live"] = {0, 1, 7};
  EXPECT_EQ(refusal(beyond),
            "bsp: the saved state names worker 7 among its live workers; expected ids from 0 to 1");
  nlohmann::json dead_contributor = saved;
  dead_contributor["live"] = {1};
  EXPECT_EQ(refusal(dead_contributor),
            "bsp: the saved state holds an update of worker 0, not live");
  nlohmann::json stray_pull = saved;
  stray_pull["held_pulls"] = {1};
  EXPECT_EQ(refusal(stray_pull),
            "bsp: the saved state holds a pull of worker 1, which has not contributed to the "
            "round");
  nlohmann::json negative = saved;
  negative["rounds_closed"] = -3;
  EXPECT_EQ(refusal(negative), "bsp: the saved state counts -3 rounds closed");
}

TEST(LocalSgdTest, PlansHLocalStepsAndAveragesDeltas) {
  auto local = make_protocol("local_sgd", {{"local_steps", 5.0}});
  RecordingActions actions;
  start(*local, actions, 2);
  ASSERT_EQ(actions.replies.size(), 2u);
  EXPECT_EQ(actions.replies[0].plan.kind, UpdateKind::Delta);
  EXPECT_EQ(actions.replies[0].plan.max_local_steps, 5);
  push(*local, actions, update_from(0, 1));
  EXPECT_TRUE(actions.applied.empty());
  EXPECT_EQ(actions.replies.size(), 2u) << "worker 0's pull waits for the round";
  push(*local, actions, update_from(1, 2));
  ASSERT_EQ(actions.applied.size(), 1u);
  EXPECT_EQ(actions.applied[0].kind, UpdateKind::Delta);
  EXPECT_EQ(actions.applied[0].update_ids, (std::vector<int>{1, 2}));
  EXPECT_EQ(actions.applied[0].weights, (std::vector<double>{0.5, 0.5}));
  // The next round's plans, once the round closed: H local steps again, after the new version.
  ASSERT_EQ(actions.replies.size(), 4u);
  for (size_t r = 2; r < 4; ++r) {
    EXPECT_EQ(actions.replies[r].plan.kind, UpdateKind::Delta);
    EXPECT_EQ(actions.replies[r].plan.max_local_steps, 5);
    EXPECT_EQ(actions.replies[r].version, 1);
  }
}

TEST(LocalSgdTest, DefaultsToEightLocalSteps) {
  auto local = make_protocol("local_sgd");
  RecordingActions actions;
  start(*local, actions, 1);
  EXPECT_EQ(actions.replies.at(0).plan.max_local_steps, 8);
}

}  // namespace
}  // namespace hetps::protocol
