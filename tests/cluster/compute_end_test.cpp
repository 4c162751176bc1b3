#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

#include "cluster/cluster_model.h"

namespace hetps::cluster {
namespace {

config::ClusterConfig one_worker(double speed, std::vector<config::StragglerEpisode> stragglers) {
  config::ClusterConfig cluster;
  cluster.workers = 1;
  cluster.speeds = {speed};
  cluster.stragglers = std::move(stragglers);
  return cluster;
}

TEST(ClusterComputeEnd, WithoutEpisodesDividesWorkBySpeed) {
  ClusterModel cluster(one_worker(2.0, {}), 1);
  EXPECT_EQ(cluster.compute_end(0, 3, 10), 8);
  EXPECT_EQ(cluster.compute_end(0, 3, 0), 3);
}

TEST(ClusterComputeEnd, EpisodeBeginningMidStepSlowsTheRestOfIt) {
  // 5 s of work before the episode, the other 5 at half speed take 10 s.
  ClusterModel cluster(one_worker(1.0, {{0, 5, 10, 2}}), 1);
  EXPECT_EQ(cluster.compute_end(0, 0, 10), 15);
}

TEST(ClusterComputeEnd, StepStartingInsideAnEpisodeRunsSlowUntilItEnds) {
  ClusterModel cluster(one_worker(1.0, {{0, 5, 10, 2}}), 1);
  EXPECT_EQ(cluster.compute_end(0, 7, 2), 11);
  // 4 s of work at half speed until 15, then 1 s at full speed.
  EXPECT_EQ(cluster.compute_end(0, 7, 5), 16);
}

TEST(ClusterComputeEnd, StepSpanningAWholeEpisode) {
  // Speed 2 on [0, 1) does 2, speed 0.5 on [1, 2) does 0.5, the remaining 1.5 takes 0.75 s.
  ClusterModel cluster(one_worker(2.0, {{0, 1, 1, 4}}), 1);
  EXPECT_EQ(cluster.compute_end(0, 0, 4), 2.75);
}

TEST(ClusterComputeEnd, OverlappingEpisodesMultiplyTheirSlowdowns) {
  ClusterModel cluster(one_worker(1.0, {{0, 0, 10, 2}, {0, 5, 10, 3}}), 1);
  EXPECT_EQ(cluster.speed(0, 4), 0.5);
  EXPECT_DOUBLE_EQ(cluster.speed(0, 5), 1.0 / 6);
  EXPECT_DOUBLE_EQ(cluster.speed(0, 10), 1.0 / 3);
  EXPECT_EQ(cluster.speed(0, 15), 1.0);
  // 2.5 on [0, 5), 5/6 on [5, 10), 5/3 on [10, 15), then 1 more second.
  EXPECT_DOUBLE_EQ(cluster.compute_end(0, 0, 2.5 + 5.0 / 6 + 5.0 / 3 + 1), 16);
}

TEST(ClusterComputeEnd, ChainedStepsEndWhereOneLongStepEnds) {
  config::ClusterConfig cluster = one_worker(1.5, {{0, 3, 4, 2}});
  cluster.random_stragglers = {
      .rate_per_min = 20, .mean_duration = 2, .slowdown_min = 1.5, .slowdown_max = 5};
  ClusterModel model(cluster, 11);
  double end = 0;
  for (int step = 0; step < 200; ++step) end = model.compute_end(0, end, 0.7);
  EXPECT_NEAR(end, model.compute_end(0, 0, 200 * 0.7), 1e-9 * end);
  EXPECT_GT(end, 200 * 0.7 / 1.5);  // the episodes did slow it down
}

TEST(ClusterComputeEnd, RejectsNegativeWorkAndUnknownWorkers) {
  ClusterModel cluster(one_worker(1.0, {}), 1);
  EXPECT_THROW(cluster.compute_end(0, 0, -1), std::invalid_argument);
  EXPECT_THROW(cluster.compute_end(0, NAN, 1), std::invalid_argument);
  EXPECT_THROW(cluster.compute_end(0, 0, INFINITY), std::invalid_argument);
  EXPECT_THROW(cluster.compute_end(1, 0, 1), std::out_of_range);
  EXPECT_THROW(cluster.speed(-1, 0), std::out_of_range);
}

}  // namespace
}  // namespace hetps::cluster
