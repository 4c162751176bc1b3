#include "protocol/ashl_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

namespace hetps::protocol {
namespace {

using ::testing::ElementsAre;
using ::testing::StrEq;
using ::testing::ThrowsMessage;

constexpr double kPlanMs = 1e-3;
// The plans' times are sums of a few milliseconds given in seconds: only their rounding
// separates them from the hand arithmetic.
constexpr double kPlanRounding = 1e-12;

// Three workers, steps of 1, 2 and 4 ms, each link of its own speed.
AshlProfile three_planned_workers() {
  return {.workers = {{.t_iter = 1 * kPlanMs, .t_push = 0.7 * kPlanMs, .t_pull = 0.5 * kPlanMs},
                      {.t_iter = 2 * kPlanMs, .t_push = 3 * kPlanMs, .t_pull = 0.5 * kPlanMs},
                      {.t_iter = 4 * kPlanMs, .t_push = 1.5 * kPlanMs, .t_pull = 0.5 * kPlanMs}},
          .t_compress = 0.1 * kPlanMs};
}

TEST(AshlPlanTest, LocalStepsAndSharesFollowAlgorithmOne) {
  // In ms, H_preset = 4:
  //   T_update = [1·4 + 0.7 + 0.5, 2·4 + 3 + 0.5, 4·4 + 1.5 + 0.5] = [5.2, 11.5, 18], T_max = 18
  //   T_comm   = [1.2, 3.5, 2]
  //   H = [round(16.8 / 1), round(14.5 / 2), round(16 / 4)] = [round(16.8), round(7.25), 4]
  //     = [17, 7, 4]: one rounded up, one down, and the slowest worker at the preset
  //   D = H / 28
  const StagePlan plan = plan_local_steps(three_planned_workers(), {4, "protocol.h_preset_ahl"});
  EXPECT_THAT(plan.local_steps, ElementsAre(17, 7, 4));
  EXPECT_THAT(plan.data_shares, ElementsAre(17.0 / 28, 7.0 / 28, 4.0 / 28));
}

TEST(AshlPlanTest, KeepRatiosFollowAlgorithmTwo) {
  // In ms, with H = [17, 7, 4], T_compress = 0.1, r_preset = 0.5:
  //   T_rest   = [17·1 + 0.1 + 0.5, 7·2 + 0.1 + 0.5, 4·4 + 0.1 + 0.5] = [17.6, 14.6, 16.6]
  //   T_update = T_rest + 0.5·[0.7, 3, 1.5] = [17.95, 16.1, 17.35], T_max = 17.95
  //   R = [0.35 / 0.7, min(1, 3.35 / 3), 1.35 / 1.5] = [0.5, 1, 0.9]
  const std::vector<int> local_steps{17, 7, 4};
  const std::vector<double> ratios =
      plan_keep_ratios(three_planned_workers(), local_steps, {0.5, "protocol.r_preset"},
                       {0.01, "protocol.min_ratio"});
  ASSERT_EQ(ratios.size(), 3u);
  EXPECT_NEAR(ratios[0], 0.5, kPlanRounding);
  EXPECT_EQ(ratios[1], 1.0) << "capped at 1";
  EXPECT_NEAR(ratios[2], 0.9, kPlanRounding);
}

TEST(AshlPlanTest, WithExactLocalStepsTheFastestLinkCompressesHardest) {
  // In ms, H_preset = 2: T_update = [1·2 + 1, 2·2 + 2, 4·2 + 2] = [3, 6, 10], T_max = 10,
  // H = [(10 − 1) / 1, (10 − 2) / 2, (10 − 2) / 4] = [9, 4, 2] with no rounding, so the spec's
  // closed form R[i] = 1 − (1 − r_preset)·min_j T_push[j] / T_push[i] holds exactly:
  // R = [1 − 0.5·0.5/0.5, 1 − 0.5·0.5/2, 1 − 0.5·0.5/1] = [0.5, 0.875, 0.75].
  const AshlProfile profile{
      .workers = {{.t_iter = 1 * kPlanMs, .t_push = 0.5 * kPlanMs, .t_pull = 0.5 * kPlanMs},
                  {.t_iter = 2 * kPlanMs, .t_push = 2 * kPlanMs, .t_pull = 0},
                  {.t_iter = 4 * kPlanMs, .t_push = 1 * kPlanMs, .t_pull = 1 * kPlanMs}},
      .t_compress = 0.3 * kPlanMs};
  const StagePlan plan = plan_local_steps(profile, {2, "H_preset"});
  EXPECT_THAT(plan.local_steps, ElementsAre(9, 4, 2));
  const std::vector<double> ratios =
      plan_keep_ratios(profile, plan.local_steps, {0.5, "r_preset"}, {0.01, "min_ratio"});
  ASSERT_EQ(ratios.size(), 3u);
  EXPECT_NEAR(ratios[0], 0.5, kPlanRounding);
  EXPECT_NEAR(ratios[1], 0.875, kPlanRounding);
  EXPECT_NEAR(ratios[2], 0.75, kPlanRounding);
}

TEST(AshlPlanTest, MinRatioBoundsTheKeepRatioFromBelow) {
  // As KeepRatiosFollowAlgorithmTwo with r_preset = 0.1: T_update = T_rest + 0.1·T_push =
  // [17.67, 14.9, 16.75], T_max = 17.67, R = [0.07 / 0.7, min(1, 3.07 / 3), 1.07 / 1.5]
  // = [0.1, 1, 0.7133...]; min_ratio = 0.2 lifts the first.
  const std::vector<int> local_steps{17, 7, 4};
  const std::vector<double> ratios =
      plan_keep_ratios(three_planned_workers(), local_steps, {0.1, "r_preset"}, {0.2, "min_ratio"});
  ASSERT_EQ(ratios.size(), 3u);
  EXPECT_EQ(ratios[0], 0.2);
  EXPECT_EQ(ratios[1], 1.0);
  EXPECT_NEAR(ratios[2], 1.07 / 1.5, kPlanRounding);
}

TEST(AshlPlanTest, AnIdealLinkIsNotCompressed) {
  // In ms, H = 3 each, T_compress = 0: T_rest = [3, 3, 3], T_update = [3, 3.5, 4], T_max = 4:
  // R = [1 (no push time), min(1, 1 / 1), 1 / 2].
  const AshlProfile profile{
      .workers = {{.t_iter = 1 * kPlanMs, .t_push = 0, .t_pull = 0},
                  {.t_iter = 1 * kPlanMs, .t_push = 1 * kPlanMs, .t_pull = 0},
                  {.t_iter = 1 * kPlanMs, .t_push = 2 * kPlanMs, .t_pull = 0}}};
  const std::vector<int> local_steps{3, 3, 3};
  EXPECT_THAT(plan_keep_ratios(profile, local_steps, {0.5, "r_preset"}, {0.01, "min_ratio"}),
              ElementsAre(1.0, 1.0, 0.5));

  // Every link ideal: the worker that sets T_max has 0 / 0 in the formula.
  const AshlProfile ideal{.workers = {{.t_iter = 1 * kPlanMs, .t_push = 0, .t_pull = 0},
                                      {.t_iter = 2 * kPlanMs, .t_push = 0, .t_pull = 0}}};
  const std::vector<int> two_steps{2, 1};
  EXPECT_THAT(plan_keep_ratios(ideal, two_steps, {0.5, "r_preset"}, {0.01, "min_ratio"}),
              ElementsAre(1.0, 1.0));
}

TEST(AshlPlanTest, RandomProfilesGiveBoundedPlansAndBalancedRounds) {
  std::mt19937_64 random(20240601);
  std::uniform_real_distribution<double> step(1e-4, 1e-1);
  std::uniform_real_distribution<double> link(0, 1e-1);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int trial = 0; trial < 500; ++trial) {
    AshlProfile profile{.workers = {}, .t_compress = link(random)};
    const int workers = 1 + static_cast<int>(random() % 16);
    for (int w = 0; w < workers; ++w) {
      // Now and then a free link, the edge of Algorithm 2.
      const double push = random() % 8 == 0 ? 0 : link(random);
      profile.workers.push_back({.t_iter = step(random), .t_push = push, .t_pull = link(random)});
    }
    const int h_preset = 1 + static_cast<int>(random() % 32);
    const double r_preset = 1 - unit(random);  // in (0, 1]
    const double min_ratio = 1 - unit(random);
    SCOPED_TRACE(::testing::Message() << "trial " << trial);

    const StagePlan plan = plan_local_steps(profile, {h_preset, "H_preset"});
    double t_max = 0;
    for (const WorkerTimes& t : profile.workers) {
      t_max = std::max(t_max, t.t_iter * h_preset + t.t_push + t.t_pull);
    }
    for (int w = 0; w < workers; ++w) {
      const WorkerTimes& t = profile.workers[static_cast<size_t>(w)];
      const int steps = plan.local_steps[static_cast<size_t>(w)];
      EXPECT_GE(steps, std::max(1, h_preset)) << "worker " << w;
      // Rounding H moves a worker's round off T_max by at most half a step.
      EXPECT_LE(std::abs(t.t_iter * steps + t.t_push + t.t_pull - t_max),
                t.t_iter / 2 + kPlanRounding)
          << "worker " << w;
    }
    EXPECT_NEAR(std::accumulate(plan.data_shares.begin(), plan.data_shares.end(), 0.0), 1,
                kPlanRounding);

    for (const double ratio : plan_keep_ratios(profile, plan.local_steps, {r_preset, "r_preset"},
                                               {min_ratio, "min_ratio"})) {
      EXPECT_LE(ratio, 1.0);
      EXPECT_GE(ratio, min_ratio);
      // T_max − T_rest[i] >= T_push[i]·r_preset, but the subtraction loses digits on a short push.
      EXPECT_GE(ratio, r_preset - 1e-6) << "compressed harder than r_preset";
    }
  }
}

TEST(AshlPlanTest, BadPresetsAreNamedAsTheUserSetsThem) {
  const AshlProfile profile = three_planned_workers();
  const std::vector<int> local_steps{17, 7, 4};
  EXPECT_THAT(
      [&] {
        plan_local_steps(profile, {0, "protocol.h_preset_shl"});
      },
      ThrowsMessage<std::invalid_argument>(
          StrEq("protocol.h_preset_shl = 0; it must be at least 1 local step")));
  EXPECT_THAT(
      [&] {
        plan_keep_ratios(profile, local_steps, {0, "protocol.r_preset"}, {0.1, "m"});
      },
      ThrowsMessage<std::invalid_argument>(StrEq("protocol.r_preset = 0; it must be in (0, 1]")));
  EXPECT_THAT(
      [&] {
        plan_keep_ratios(profile, local_steps, {1, "r"}, {1.5, "protocol.min_ratio"});
      },
      ThrowsMessage<std::invalid_argument>(
          StrEq("protocol.min_ratio = 1.5; it must be in (0, 1]")));
  const std::vector<int> two_counts{17, 7};
  EXPECT_THAT(
      [&] {
        plan_keep_ratios(profile, two_counts, {0.5, "r"}, {0.1, "m"});
      },
      ThrowsMessage<std::invalid_argument>(
          StrEq("ASHL keep ratios: 2 local step counts for 3 workers; one per worker")));
  const std::vector<int> no_steps{17, 0, 4};
  EXPECT_THAT(
      [&] {
        plan_keep_ratios(profile, no_steps, {0.5, "r"}, {0.1, "m"});
      },
      ThrowsMessage<std::invalid_argument>(
          StrEq("ASHL keep ratios: worker 1 takes 0 local steps; it must take at least 1")));
}

TEST(AshlPlanTest, BadProfilesNameTheTimeAndTheWorker) {
  const auto local_steps_error = [](const AshlProfile& profile) {
    return [profile] { plan_local_steps(profile, {1, "H_preset"}); };
  };
  EXPECT_THAT(local_steps_error({}),
              ThrowsMessage<std::invalid_argument>(
                  StrEq("ASHL profile: no workers; there must be at least 1 to plan for")));

  AshlProfile zero_step = three_planned_workers();
  zero_step.workers[2].t_iter = 0;
  EXPECT_THAT(local_steps_error(zero_step),
              ThrowsMessage<std::invalid_argument>(
                  StrEq("ASHL profile: t_iter of worker 2 is 0; a step takes time")));
  zero_step.ids = {0, 3, 5};  // after workers 1, 2 and 4 died, the third is worker 5
  EXPECT_THAT(local_steps_error(zero_step),
              ThrowsMessage<std::invalid_argument>(
                  StrEq("ASHL profile: t_iter of worker 5 is 0; a step takes time")));

  AshlProfile negative_push = three_planned_workers();
  negative_push.workers[1].t_push = -0.001;
  EXPECT_THAT(local_steps_error(negative_push),
              ThrowsMessage<std::invalid_argument>(
                  StrEq("ASHL profile: t_push of worker 1 is -0.001; it must be a finite time "
                        "of at least 0 seconds")));

  AshlProfile endless_pull = three_planned_workers();
  endless_pull.workers[0].t_pull = std::numeric_limits<double>::infinity();
  EXPECT_THAT(local_steps_error(endless_pull),
              ThrowsMessage<std::invalid_argument>(
                  StrEq("ASHL profile: t_pull of worker 0 is inf; it must be a finite time of "
                        "at least 0 seconds")));

  AshlProfile unmeasured_compress = three_planned_workers();
  unmeasured_compress.t_compress = std::nan("");
  const std::vector<int> local_steps{17, 7, 4};
  EXPECT_THAT(
      [&] {
        plan_keep_ratios(unmeasured_compress, local_steps, {0.5, "r"}, {0.1, "m"});
      },
      ThrowsMessage<std::invalid_argument>(StrEq(
          "ASHL profile: t_compress is nan; it must be a finite time of at least 0 seconds")));
}

}  // namespace
}  // namespace hetps::protocol
