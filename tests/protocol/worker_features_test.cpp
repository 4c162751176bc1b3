#include "protocol/worker_features.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace hetps::protocol {
namespace {

using ::testing::StrEq;
using ::testing::ThrowsMessage;

TEST(WorkerFeaturesTest, FeaturesAreDividedByTheMedianWorker) {
  WorkerFeatures features(3, 4);
  features.observe(0, 1, 0.25);
  features.observe(1, 2, 0.75);
  features.observe(2, 4, 0.5);
  const std::vector<int> workers{0, 1, 2};
  EXPECT_EQ(features.normalized(workers), (Points{{0.5, 0.5}, {1, 1.5}, {2, 1}}));
}

TEST(WorkerFeaturesTest, AnEvenNumberOfWorkersUsesTheMeanOfTheMiddleTwo) {
  WorkerFeatures features(4, 4);
  for (const auto& [worker, seconds] : {std::pair{0, 10.0}, {1, 1.0}, {2, 5.0}, {3, 3.0}}) {
    features.observe(worker, seconds, 1);
  }
  // Median step time (3 + 5) / 2 = 4; workers in the order asked for.
  const std::vector<int> workers{1, 3, 2, 0};
  EXPECT_EQ(features.normalized(workers), (Points{{0.25, 1}, {0.75, 1}, {1.25, 1}, {2.5, 1}}));
}

TEST(WorkerFeaturesTest, AWorkersFeatureIsTheMeanOfItsWindow) {
  WorkerFeatures features(3, 3);
  features.observe(0, 1, 1);
  features.observe(0, 2, 3);  // means 1.5 and 2
  features.observe(1, 3, 4);
  features.observe(2, 3, 4);
  const std::vector<int> workers{0, 1, 2};
  EXPECT_EQ(features.normalized(workers)[0], (std::vector<double>{0.5, 0.5}));
}

TEST(WorkerFeaturesTest, TheWindowKeepsOnlyTheLastSamples) {
  WorkerFeatures features(3, 2);
  features.observe(0, 1, 8);  // evicted by the two below
  features.observe(0, 2, 2);
  features.observe(0, 4, 2);
  features.observe(1, 6, 2);
  features.observe(2, 6, 2);
  // Worker 0's window holds 2 and 4: mean 3 over the median 6.
  const std::vector<int> workers{0, 1, 2};
  EXPECT_EQ(features.normalized(workers)[0], (std::vector<double>{0.5, 1}));
}

TEST(WorkerFeaturesTest, AFeatureWithAZeroMedianIsDividedByItsLargestValue) {
  WorkerFeatures features(3, 1);
  features.observe(0, 1, 0);
  features.observe(1, 1, 0);
  features.observe(2, 1, 0.5);
  const std::vector<int> workers{0, 1, 2};
  EXPECT_EQ(features.normalized(workers), (Points{{1, 0}, {1, 0}, {1, 1}}));
  WorkerFeatures no_network(2, 1);
  no_network.observe(0, 1, 0);
  no_network.observe(1, 2, 0);
  const std::vector<int> both{0, 1};
  EXPECT_EQ(no_network.normalized(both), (Points{{2.0 / 3.0, 0}, {4.0 / 3.0, 0}}));
}

TEST(WorkerFeaturesTest, WorkersWithoutSamplesAreReportedAndCannotBeNormalized) {
  WorkerFeatures features(3, 2);
  EXPECT_EQ(features.unprofiled(), (std::vector<int>{0, 1, 2}));
  features.observe(1, 1, 1);
  features.observe(2, 3, 1);
  EXPECT_EQ(features.unprofiled(), (std::vector<int>{0}));
  EXPECT_FALSE(features.profiled(0));
  EXPECT_TRUE(features.profiled(1));
  const std::vector<int> all{0, 1, 2};
  EXPECT_THAT([&] { features.normalized(all); },
              ThrowsMessage<std::invalid_argument>(
                  StrEq("worker features: worker 0 has no sample yet; profile it first")));
  // The profiled ones alone are normalized among themselves.
  const std::vector<int> profiled{1, 2};
  EXPECT_EQ(features.normalized(profiled), (Points{{0.5, 1}, {1.5, 1}}));
}

TEST(WorkerFeaturesTest, AForgottenWorkerHasNoSamples) {
  WorkerFeatures features(2, 2);
  features.observe(0, 1, 1);
  features.observe(1, 1, 1);
  features.forget(1);
  EXPECT_EQ(features.unprofiled(), (std::vector<int>{1}));
}

TEST(WorkerFeaturesTest, StateRoundTrips) {
  WorkerFeatures features(3, 2);
  for (int sample = 0; sample < 7; ++sample) features.observe(sample % 3, 1 + sample, 0.5 * sample);
  WorkerFeatures restored(3, 2);
  restored.restore_state(features.save_state());
  EXPECT_EQ(restored.save_state(), features.save_state());
  const std::vector<int> workers{0, 1, 2};
  EXPECT_EQ(restored.normalized(workers), features.normalized(workers));
  EXPECT_EQ(features.save_state()["workers"][0]["step_seconds"], nlohmann::json({4.0, 7.0}))
      << "worker 0's window after step times 1, 4, 7";
}

TEST(WorkerFeaturesTest, RefusesAStateThatDoesNotFit) {
  WorkerFeatures three(3, 2);
  WorkerFeatures two(2, 2);
  EXPECT_THAT([&] { two.restore_state(three.save_state()); },
              ThrowsMessage<std::invalid_argument>(
                  StrEq("worker features: the saved state holds 3 workers but this run has 2")));
  WorkerFeatures long_window(2, 3);
  for (int sample = 0; sample < 3; ++sample) long_window.observe(1, 1, 1);
  EXPECT_THAT([&] { two.restore_state(long_window.save_state()); },
              ThrowsMessage<std::invalid_argument>(
                  StrEq("worker features: worker 1's saved windows hold 3 step and 3 round-trip "
                        "samples; they must hold as many, at most the window of 2")));
  nlohmann::json uneven = two.save_state();
  uneven["workers"][0]["step_seconds"] = {1.0};
  EXPECT_THAT([&] { two.restore_state(uneven); },
              ThrowsMessage<std::invalid_argument>(
                  StrEq("worker features: worker 0's saved windows hold 1 step and 0 round-trip "
                        "samples; they must hold as many, at most the window of 2")));
}

TEST(WorkerFeaturesTest, RefusesBadSizes) {
  EXPECT_THAT([] { WorkerFeatures(0, 2); },
              ThrowsMessage<std::invalid_argument>(
                  StrEq("worker features: workers = 0; there must be at least 1")));
  EXPECT_THAT([] { WorkerFeatures(2, 0); },
              ThrowsMessage<std::invalid_argument>(
                  StrEq("worker features: window = 0 samples; it must be at least 1")));
}

TEST(WorkerFeaturesTest, RefusesUnknownWorkersAndBadTimes) {
  WorkerFeatures features(2, 2);
  EXPECT_THAT([&] { features.observe(2, 1, 1); },
              ThrowsMessage<std::invalid_argument>(
                  StrEq("worker features: no worker 2; workers are 0 ... 1")));
  EXPECT_THAT([&] { features.profiled(-1); },
              ThrowsMessage<std::invalid_argument>(
                  StrEq("worker features: no worker -1; workers are 0 ... 1")));
  EXPECT_THAT([&] { features.observe(0, -1, 1); },
              ThrowsMessage<std::invalid_argument>(StrEq(
                  "worker features: worker 0's step time is -1 s; times must be finite and at "
                  "least 0")));
  EXPECT_THAT([&] { features.observe(1, 1, NAN); },
              ThrowsMessage<std::invalid_argument>(StrEq(
                  "worker features: worker 1's round-trip time is nan s; times must be finite "
                  "and at least 0")));
  EXPECT_EQ(features.unprofiled(), (std::vector<int>{0, 1})) << "a refused sample is not kept";
}

}  // namespace
}  // namespace hetps::protocol
