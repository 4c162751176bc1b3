#include "protocol/decision_rewards.h"

#include <gtest/gtest.h>

#include <vector>

namespace hetps::protocol {
namespace {

// Evaluations every 5 s: the loss falls 2.0, 1.6, 1.0, 0.9, 0.5 while 100 bytes a second go to
// the server.
const std::vector<EvaluationPoint> kEvaluations = {
    {0, 2.0, 0}, {5, 1.6, 500}, {10, 1.0, 1000}, {15, 0.9, 1500}, {20, 0.5, 2000}};

TEST(DecisionRewards, EachDecisionIsScoredOverItsIntervalToTheNext) {
  // 0 → 10: (2.0 − 1.0) / 10 − 1e-4 × 1000 / 10 = 0.09; 10 → 20 (the end): (1.0 − 0.5) / 10 −
  // 0.01 = 0.04.
  const std::vector<double> rewards = decision_rewards({0, 10}, kEvaluations, 20, 1e-4);
  ASSERT_EQ(rewards.size(), 2U);
  EXPECT_DOUBLE_EQ(rewards[0], 0.09);
  EXPECT_DOUBLE_EQ(rewards[1], 0.04);
}

TEST(DecisionRewards, ATimeBetweenEvaluationsReadsTheLastBeforeIt) {
  // 7 reads the evaluation at 5, 18 the one at 15: (1.6 − 0.9) / 11 − 0 = 0.7 / 11; then 18 →
  // 20 reads 15 and 20: (0.9 − 0.5) / 2.
  const std::vector<double> rewards = decision_rewards({7, 18}, kEvaluations, 20, 0);
  ASSERT_EQ(rewards.size(), 2U);
  EXPECT_DOUBLE_EQ(rewards[0], (1.6 - 0.9) / 11);
  EXPECT_DOUBLE_EQ(rewards[1], (0.9 - 0.5) / 2);
}

TEST(DecisionRewards, ADecisionBeforeTheFirstEvaluationReadsTheFirst) {
  const std::vector<EvaluationPoint> late = {{4, 3.0, 40}, {8, 2.0, 80}};
  // −1 → 8: (3.0 − 2.0) / 9 − 0.5 × 40 / 9.
  const std::vector<double> rewards = decision_rewards({-1}, late, 8, 0.5);
  ASSERT_EQ(rewards.size(), 1U);
  EXPECT_DOUBLE_EQ(rewards[0], (1.0 - 20.0) / 9);
}

TEST(DecisionRewards, ADecisionTheRunEndedOnAndARunWithoutEvaluationsEarnNothing) {
  // 0 → 20: (2.0 − 0.5) / 20 − 1e-4 × 2000 / 20 = 0.065; 20 → 20: nothing.
  const std::vector<double> rewards = decision_rewards({0, 20}, kEvaluations, 20, 1e-4);
  ASSERT_EQ(rewards.size(), 2U);
  EXPECT_DOUBLE_EQ(rewards[0], 0.065);
  EXPECT_EQ(rewards[1], 0.0);
  EXPECT_EQ(decision_rewards({0, 10}, {}, 20, 1e-4), (std::vector<double>{0.0, 0.0}));
  EXPECT_TRUE(decision_rewards({}, kEvaluations, 20, 1e-4).empty());
}

}  // namespace
}  // namespace hetps::protocol
