// What every engine refuses to carry out (ServerState::check_plan, which the sim engine and the
// real engines' ServerLoop call on every reply): each refusal names the protocol, the engine,
// the worker and what is wrong.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

#include <fmt/format.h>

#include "engine/server_state.h"
#include "small_run.h"

namespace hetps::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

class CheckPlanTest : public ::testing::Test {
 protected:
  CheckPlanTest() : config_(small_config("bsp")), learner_(784, 10, 1) {}

  void check(const protocol::WorkerPlan& plan) {
    engine::ServerState state(config_, small_data(), learner_, log_);
    state.check_plan(1, plan);
  }
  static protocol::WorkerPlan compressed_delta(double keep_ratio) {
    protocol::WorkerPlan plan;
    plan.kind = protocol::UpdateKind::Delta;
    plan.keep_ratio = keep_ratio;
    return plan;
  }

  config::Config config_;
  SoftmaxLearner learner_;
  CollectingListener log_;
};

TEST_F(CheckPlanTest, ACompressedDeltaToTheServerIsCarried) {
  EXPECT_NO_THROW(check(compressed_delta(0.1)));
  EXPECT_NO_THROW(check(compressed_delta(1.0)));
}

TEST_F(CheckPlanTest, ACompressedGradientIsRefused) {
  protocol::WorkerPlan gradient;
  gradient.keep_ratio = 0.1;
  EXPECT_THAT([&] { check(gradient); },
              ThrowsMessage<std::invalid_argument>(HasSubstr(
                  "protocol.name = \"bsp\" on engine = \"sim\": the plan for worker 1 asks for "
                  "top-k compression (keep_ratio = 0.1) of a gradient")));
}

TEST_F(CheckPlanTest, AKeepRatioOutsideZeroToOneIsRefused) {
  for (const double keep_ratio : {0.0, -0.5, 1.5}) {
    EXPECT_THAT([&] { check(compressed_delta(keep_ratio)); },
                ThrowsMessage<std::invalid_argument>(
                    HasSubstr(fmt::format("has keep_ratio = {}; allowed: (0, 1]", keep_ratio))));
  }
}

TEST_F(CheckPlanTest, CompressionInALeadersCommunityIsRefused) {
  protocol::WorkerPlan member = compressed_delta(0.5);
  member.send_to = 0;
  protocol::WorkerPlan leader = compressed_delta(0.5);
  leader.gather_from = {0};
  for (const protocol::WorkerPlan& plan : {member, leader}) {
    EXPECT_THAT([&] { check(plan); },
                ThrowsMessage<std::invalid_argument>(
                    HasSubstr("asks for top-k compression (keep_ratio = 0.5) in a leader's "
                              "community; compressed deltas go to the server")));
  }
}

TEST_F(CheckPlanTest, DataSharesForEveryWorkerSummingToOneAreCarried) {
  protocol::WorkerPlan plan = compressed_delta(1.0);
  plan.data_shares = {0.4, 0.3, 0.2, 0.1};
  EXPECT_NO_THROW(check(plan));
  plan.data_shares = {0.5, 0.5, 0, 0};  // a dead worker's share is 0
  EXPECT_NO_THROW(check(plan));
}

TEST_F(CheckPlanTest, DataSharesNotOnePerWorkerSummingToOneAreRefused) {
  const auto refused = [&](std::vector<double> shares, const std::string& why) {
    protocol::WorkerPlan plan = compressed_delta(1.0);
    plan.data_shares = std::move(shares);
    EXPECT_THAT([&] { check(plan); },
                ThrowsMessage<std::invalid_argument>(HasSubstr("the plan for worker 1 " + why)));
  };
  refused({0.5, 0.5}, "has 2 data shares; expected one per worker (4)");
  refused({0.5, 0.5, 0.5, -0.5}, "has a data share of -0.5; allowed: [0, 1]");
  refused({0.25, 0.25, 0.25, 0.2}, "has data shares summing to 0.95, not 1");
}

TEST_F(CheckPlanTest, DataSharesInALeadersCommunityAreRefused) {
  protocol::WorkerPlan plan = compressed_delta(1.0);
  plan.data_shares = {0.25, 0.25, 0.25, 0.25};
  plan.send_to = 0;
  EXPECT_THAT([&] { check(plan); }, ThrowsMessage<std::invalid_argument>(HasSubstr(
                                        "re-cuts the data shares in a leader's community")));
}

}  // namespace
}  // namespace hetps::testing
