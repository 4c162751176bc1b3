#include "protocol/sapus.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <vector>

#include "protocol/sapus_rules.h"
#include "protocol/threshold_window.h"
#include "server/parameter_server.h"
#include "support/protocol_driving.h"
#include "support/recording_actions.h"

namespace hetps::protocol {
namespace {

using ::testing::HasSubstr;
using testing::make_protocol;
using testing::RecordingActions;
using ::testing::ThrowsMessage;

TEST(SapusRulesTest, DelayBoundIsRhoRoundTripsOfSteps) {
  // ceil(ρ · t_comm / t_iter): 1 · 0.05 / 0.01 = 5 steps; ρ = 2 doubles it.
  EXPECT_EQ(delay_bound(0.01, 0.05, 1, 64), 5);
  EXPECT_EQ(delay_bound(0.01, 0.05, 2, 64), 10);
  EXPECT_EQ(delay_bound(0.01, 0.041, 1, 64), 5) << "rounded up";
}

TEST(SapusRulesTest, DelayBoundIsClampedToOneAndTheCap) {
  EXPECT_EQ(delay_bound(0.01, 0.0, 1, 64), 1) << "a free link still computes one step";
  EXPECT_EQ(delay_bound(0.01, 0.0001, 1, 64), 1);
  EXPECT_EQ(delay_bound(0.01, 10.0, 1, 64), 64);
  EXPECT_EQ(delay_bound(1e-300, 1e300, 1, 7), 7) << "beyond int's range it clamps, not overflows";
  EXPECT_EQ(delay_bound(0.0, 1.0, 1, 9), 9) << "no measured step time: the cap";
}

TEST(SapusRulesTest, DelayBoundRejectsBadMeasurementsAndSettings) {
  EXPECT_THROW(delay_bound(-0.1, 0.1, 1, 8), std::invalid_argument);
  EXPECT_THROW(delay_bound(0.1, std::numeric_limits<double>::infinity(), 1, 8),
               std::invalid_argument);
  EXPECT_THROW(delay_bound(0.1, 0.1, 0, 8), std::invalid_argument);
  EXPECT_THROW(delay_bound(0.1, 0.1, 1, 0), std::invalid_argument);
}

TEST(SapusRulesTest, AFreshDeltaGetsAlphaAStaleOneAlphaOverOnePlusD) {
  EXPECT_DOUBLE_EQ(merge_weight(0.8, 0), 0.8);
  EXPECT_DOUBLE_EQ(merge_weight(0.8, 1), 0.4);
  EXPECT_DOUBLE_EQ(merge_weight(0.8, 3), 0.2);
  EXPECT_THROW(merge_weight(0.8, -1), std::invalid_argument);
}

TEST(RelativeDropTest, IsTheFittedLinesFallOverTheMean) {
  // The line 10, 9, 8, 7, 6 falls by 4 across the window; its mean is 8.
  const std::vector<double> falling{10, 9, 8, 7, 6};
  EXPECT_DOUBLE_EQ(relative_drop(falling), 0.5);
  // Noise around the same line fits the same line: residuals (0.5, −1, 0, 1, −0.5) sum to 0
  // and are orthogonal to the positions.
  const std::vector<double> noisy{10.5, 8, 8, 8, 5.5};
  EXPECT_DOUBLE_EQ(relative_drop(noisy), 0.5);
  const std::vector<double> flat{3, 3, 3};
  EXPECT_DOUBLE_EQ(relative_drop(flat), 0);
  const std::vector<double> rising{1, 2, 3};
  EXPECT_DOUBLE_EQ(relative_drop(rising), -1);
  const std::vector<double> one{5};
  EXPECT_DOUBLE_EQ(relative_drop(one), 0);
}

ThresholdRule rule_of_window(int window) {
  ThresholdRule rule;
  rule.window = window;
  rule.fast_drop = 0.05;
  rule.slow_drop = 0.01;
  rule.theta_up = 2;
  rule.theta_down = 0.5;
  rule.theta_min = 1e-4;
  rule.theta_max = 1e-2;
  return rule;
}

TEST(ThresholdWindowTest, ASteeplyFallingLossRaisesThetaAtTheWindowsEnd) {
  ThresholdWindow window(rule_of_window(3), 1e-3);
  EXPECT_EQ(window.observe(2.0), std::nullopt);
  EXPECT_EQ(window.observe(1.8), std::nullopt);
  EXPECT_DOUBLE_EQ(window.theta(), 1e-3) << "nothing changes mid-window";
  const auto drop = window.observe(1.6);  // falls 0.4 over a mean of 1.8
  ASSERT_TRUE(drop.has_value());
  EXPECT_DOUBLE_EQ(*drop, 0.4 / 1.8);
  EXPECT_DOUBLE_EQ(window.theta(), 2e-3);
}

TEST(ThresholdWindowTest, AFlatLossLowersTheta) {
  ThresholdWindow window(rule_of_window(2), 1e-3);
  window.observe(1.0);
  window.observe(1.0);
  EXPECT_DOUBLE_EQ(window.theta(), 5e-4);
}

TEST(ThresholdWindowTest, ALossBetweenTheBoundsKeepsTheta) {
  ThresholdWindow window(rule_of_window(2), 1e-3);
  window.observe(1.0);
  window.observe(0.98);  // a drop of 0.02 / 0.99: between slow_drop and fast_drop
  EXPECT_DOUBLE_EQ(window.theta(), 1e-3);
}

// spec: θ is relaxed when the drop *exceeds* fast_drop; 5 then 3 drops by exactly 2 / 4.
TEST(ThresholdWindowTest, ADropOfExactlyFastDropKeepsTheta) {
  ThresholdRule rule = rule_of_window(2);
  rule.fast_drop = 0.5;
  ThresholdWindow window(rule, 1e-3);
  window.observe(5.0);
  EXPECT_EQ(window.observe(3.0), 0.5);
  EXPECT_DOUBLE_EQ(window.theta(), 1e-3);
}

TEST(ThresholdWindowTest, ThetaStaysInItsRange) {
  ThresholdWindow falling(rule_of_window(2), 1e-3);
  for (int w = 0; w < 20; ++w) {
    falling.observe(1.0);
    falling.observe(0.5);
  }
  EXPECT_DOUBLE_EQ(falling.theta(), 1e-2);
  ThresholdWindow flat(rule_of_window(2), 1e-3);
  for (int w = 0; w < 20; ++w) {
    flat.observe(1.0);
    flat.observe(1.0);
  }
  EXPECT_DOUBLE_EQ(flat.theta(), 1e-4);
}

TEST(ThresholdWindowTest, RefusesRulesThatCannotWorkNamingTheParameter) {
  ThresholdRule rule = rule_of_window(1);
  EXPECT_THAT([&] { ThresholdWindow(rule, 1e-3); },
              ThrowsMessage<std::invalid_argument>(HasSubstr("protocol.window = 1")));
  rule = rule_of_window(4);
  rule.slow_drop = 0.1;
  EXPECT_THAT([&] { ThresholdWindow(rule, 1e-3); },
              ThrowsMessage<std::invalid_argument>(HasSubstr("protocol.slow_drop = 0.1")));
  rule = rule_of_window(4);
  EXPECT_THAT([&] { ThresholdWindow(rule, 0.5); },
              ThrowsMessage<std::invalid_argument>(HasSubstr("protocol.theta = 0.5")));
  rule.theta_min = 0.1;
  EXPECT_THAT([&] { ThresholdWindow(rule, 0.05); },
              ThrowsMessage<std::invalid_argument>(HasSubstr("protocol.theta_min = 0.1")));
}

UpdateInfo push_of(int worker, int id, int64_t clock, int64_t base_version, int steps,
                   double step_seconds, double round_trip, double now, double loss = 1) {
  UpdateInfo update;
  update.worker = worker;
  update.id = id;
  update.kind = UpdateKind::Delta;
  update.clock = clock;
  update.base_version = base_version;
  update.steps = steps;
  update.compute_seconds = step_seconds * steps;
  update.comm_seconds = round_trip;
  update.now = now;
  update.train_loss = loss;
  return update;
}

config::ProtocolParams sapus_params() {
  return {{"theta", 1e-3}, {"rho", 2.0}, {"tau_cap", 50.0}, {"alpha", 0.6}, {"window", 100.0}};
}

TEST(SapusTest, AnswersEveryPullAtOnceWithOneStepUntilTheWorkerIsMeasured) {
  auto sapus = make_protocol("sapus", sapus_params());
  RecordingActions actions;
  sapus->start(RunShape{2, 1000, 1}, actions);
  sapus->on_pull_request(0, actions);
  sapus->on_pull_request(1, actions);
  ASSERT_EQ(actions.replies.size(), 2u);
  for (const auto& reply : actions.replies) {
    EXPECT_EQ(reply.plan.kind, UpdateKind::Delta);
    EXPECT_EQ(reply.plan.max_local_steps, 1);
    EXPECT_DOUBLE_EQ(reply.plan.change_threshold, 1e-3);
  }
}

TEST(SapusTest, TheDelayBoundFollowsTheMeasuredTimesFromTheSecondPush) {
  auto sapus = make_protocol("sapus", sapus_params());
  RecordingActions actions;
  sapus->start(RunShape{1, 1000, 1}, actions);
  sapus->on_pull_request(0, actions);
  // The first push carries no round trip: the plan stays one step.
  testing::push(*sapus, actions, push_of(0, 1, 1, 0, 1, 0.01, 0.0, 0.01));
  EXPECT_EQ(actions.replies.back().plan.max_local_steps, 1);
  // Step 10 ms, round trip 40 ms: ceil(2 · 0.04 / 0.01) = 8 steps.
  testing::push(*sapus, actions, push_of(0, 2, 2, 1, 1, 0.01, 0.04, 0.06));
  EXPECT_EQ(actions.replies.back().plan.max_local_steps, 8);
  // The windows' means: steps (0.01 + 0.03) / 2, round trips (0.04 + 0.08) / 2:
  // ceil(2 · 0.06 / 0.02) = 6.
  testing::push(*sapus, actions, push_of(0, 3, 3, 2, 8, 0.03, 0.08, 0.5));
  EXPECT_EQ(actions.replies.back().plan.max_local_steps, 6);
}

TEST(SapusTest, MergesEachDeltaOnArrivalWeightedByItsStaleness) {
  auto sapus = make_protocol("sapus", sapus_params());
  RecordingActions actions;
  sapus->start(RunShape{3, 1000, 1}, actions);
  for (int w = 0; w < 3; ++w) sapus->on_pull_request(w, actions);
  // All three pulled version 0. The first delta is fresh, the next ones 1 and 2 updates stale.
  for (int w = 0; w < 3; ++w) {
    testing::push(*sapus, actions, push_of(w, 10 + w, 1, 0, 1, 0.01, 0.0, 0.01));
  }
  ASSERT_EQ(actions.applied.size(), 3u);
  const double expected[] = {0.6, 0.3, 0.2};
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(actions.applied[k].kind, UpdateKind::Delta);
    EXPECT_EQ(actions.applied[k].update_ids, (std::vector<int>{10 + static_cast<int>(k)}));
    ASSERT_EQ(actions.applied[k].weights.size(), 1u);
    EXPECT_DOUBLE_EQ(actions.applied[k].weights[0], expected[k]);
  }
}

// The merge formula on small vectors: W ← W + α/(1 + d)·(w_i − W_base_i), through a real server.
TEST(SapusTest, TheServerMergesEachDeltaScaledByItsWeight) {
  auto sapus = make_protocol("sapus", sapus_params());  // α = 0.6
  RecordingActions actions;
  sapus->start(RunShape{3, 1000, 1}, actions);
  for (int w = 0; w < 3; ++w) sapus->on_pull_request(w, actions);
  const std::map<int, std::vector<float>> deltas = {
      {10, {1.0f, -2.0f}}, {11, {4.0f, 0.0f}}, {12, {-3.0f, 6.0f}}};
  for (int w = 0; w < 3; ++w) {
    testing::push(*sapus, actions, push_of(w, 10 + w, 1, 0, 1, 0.01, 0.0, 0.01));
  }
  params::ParamLayout layout;
  layout.add("w", {2});
  server::ServerOptions options;
  options.momentum = 0;
  server::ParameterServer server(layout, {1.0f, 2.0f}, options);
  for (const ApplyOrder& order : actions.applied) {
    std::vector<const float*> payloads;
    for (int id : order.update_ids) payloads.push_back(deltas.at(id).data());
    server.apply(order, payloads, 0);
  }
  // 1 + 0.6·1 + 0.3·4 + 0.2·(−3) and 2 + 0.6·(−2) + 0.3·0 + 0.2·6.
  EXPECT_FLOAT_EQ(server.model()[0], 2.2f);
  EXPECT_FLOAT_EQ(server.model()[1], 2.0f);
}

TEST(SapusTest, RecordsPushIntervalsWeightsAndThetaOverTime) {
  config::ProtocolParams params = sapus_params();
  params["window"] = 2.0;
  auto sapus = make_protocol("sapus", params);
  RecordingActions actions;
  sapus->start(RunShape{1, 1000, 1}, actions);
  sapus->on_pull_request(0, actions);
  testing::push(*sapus, actions, push_of(0, 1, 1, 0, 1, 0.01, 0.0, 0.5, 2.0));
  testing::push(*sapus, actions, push_of(0, 2, 2, 1, 1, 0.01, 0.02, 1.25, 1.0));

  const auto pushes = actions.events_of_type("push");
  ASSERT_EQ(pushes.size(), 2u);
  EXPECT_FALSE(pushes[0].details.contains("interval_s")) << "no push before the first";
  EXPECT_DOUBLE_EQ(pushes[1].details.at("interval_s").get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(pushes[1].details.at("weight").get<double>(), 0.6);
  EXPECT_EQ(pushes[1].details.at("steps"), 1);

  const auto thresholds = actions.events_of_type("threshold");
  ASSERT_EQ(thresholds.size(), 2u);
  EXPECT_EQ(thresholds[0].details.at("reason"), "start");
  EXPECT_DOUBLE_EQ(thresholds[1].details.at("previous").get<double>(), 1e-3);
  EXPECT_DOUBLE_EQ(thresholds[1].details.at("theta").get<double>(), 2e-3) << "the loss halved";
  EXPECT_DOUBLE_EQ(actions.replies.back().plan.change_threshold, 2e-3) << "sent with the pull";
}

TEST(SapusTest, ARestoredProtocolContinuesWhereTheSavedOneWas) {
  config::ProtocolParams params = sapus_params();
  params["window"] = 3.0;
  auto sapus = make_protocol("sapus", params);
  RecordingActions actions;
  sapus->start(RunShape{2, 1000, 1}, actions);
  testing::push(*sapus, actions, push_of(0, 1, 1, 0, 1, 0.01, 0.0, 0.1, 2.0));
  testing::push(*sapus, actions, push_of(0, 2, 2, 1, 1, 0.01, 0.05, 0.2, 1.5));

  auto restored = make_protocol("sapus", params);
  RecordingActions after;
  restored->start(RunShape{2, 1000, 1}, after);
  restored->restore_state(sapus->save_state());
  // A resumed engine restores the server's version with the protocol.
  after.apply({});
  after.apply({});
  const UpdateInfo third = push_of(0, 3, 3, 2, 10, 0.01, 0.05, 0.3, 1.0);
  testing::push(*sapus, actions, third);
  testing::push(*restored, after, third);
  EXPECT_EQ(after.replies.back().plan, actions.replies.back().plan);
  EXPECT_EQ(after.events.back().details, actions.events.back().details);
  EXPECT_EQ(sapus->save_state(), restored->save_state());
}

TEST(SapusTest, RefusesAStateOfAnotherWorkerCount) {
  auto sapus = make_protocol("sapus", sapus_params());
  RecordingActions actions;
  sapus->start(RunShape{2, 1000, 1}, actions);
  auto other = make_protocol("sapus", sapus_params());
  other->start(RunShape{3, 1000, 1}, actions);
  EXPECT_THROW(other->restore_state(sapus->save_state()), std::invalid_argument);
}

}  // namespace
}  // namespace hetps::protocol
