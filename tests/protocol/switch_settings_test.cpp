#include "protocol/switch_settings.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace hetps::protocol {
namespace {

double momentum_after(MomentumRule rule, int64_t asp_updates) {
  const SwitchSettings settings{.divide_lr = true, .momentum_rule = rule, .ramp_steps = 10};
  return asp_optimizer(settings, 4, 0.8, asp_updates).momentum;
}

TEST(SwitchSettingsTest, TheLearningRateIsDividedByTheWorkers) {
  EXPECT_DOUBLE_EQ(asp_optimizer({.divide_lr = true}, 8, 0.9, 0).lr_scale, 1.0 / 8);
  EXPECT_DOUBLE_EQ(asp_optimizer({.divide_lr = false}, 8, 0.9, 0).lr_scale, 1.0);
}

TEST(SwitchSettingsTest, RampedIsMOverNForTheFirstStageThenM) {
  EXPECT_DOUBLE_EQ(momentum_after(MomentumRule::Ramped, 0), 0.2);
  EXPECT_DOUBLE_EQ(momentum_after(MomentumRule::Ramped, 9), 0.2);
  EXPECT_DOUBLE_EQ(momentum_after(MomentumRule::Ramped, 10), 0.8);
  EXPECT_DOUBLE_EQ(momentum_after(MomentumRule::Ramped, 500), 0.8);
}

TEST(SwitchSettingsTest, MultistepDoublesEveryStageUpToM) {
  EXPECT_DOUBLE_EQ(momentum_after(MomentumRule::Multistep, 0), 0.2);
  EXPECT_DOUBLE_EQ(momentum_after(MomentumRule::Multistep, 10), 0.4);
  EXPECT_DOUBLE_EQ(momentum_after(MomentumRule::Multistep, 20), 0.8);
  EXPECT_DOUBLE_EQ(momentum_after(MomentumRule::Multistep, 1000), 0.8);
}

TEST(SwitchSettingsTest, TheOtherRules) {
  EXPECT_DOUBLE_EQ(momentum_after(MomentumRule::Scaled, 1000), 0.2);
  EXPECT_DOUBLE_EQ(momentum_after(MomentumRule::Zero, 0), 0.0);
  EXPECT_DOUBLE_EQ(momentum_after(MomentumRule::Keep, 0), 0.8);
  EXPECT_THROW(momentum_rule_named("nesterov"), std::invalid_argument);
}

}  // namespace
}  // namespace hetps::protocol
