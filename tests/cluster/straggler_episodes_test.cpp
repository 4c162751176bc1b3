#include <cmath>
#include <limits>
#include <stdexcept>

#include <gtest/gtest.h>

#include "cluster/cluster_model.h"

namespace hetps::cluster {
namespace {

constexpr double kForever = std::numeric_limits<double>::infinity();

config::ClusterConfig random_cluster(int workers) {
  config::ClusterConfig cluster;
  cluster.workers = workers;
  cluster.random_stragglers = {
      .rate_per_min = 6, .mean_duration = 5, .slowdown_min = 2, .slowdown_max = 4};
  return cluster;
}

std::vector<Episode> of_worker(const std::vector<Episode>& episodes, int worker) {
  std::vector<Episode> own;
  for (const Episode& episode : episodes) {
    if (episode.worker == worker) own.push_back(episode);
  }
  return own;
}

TEST(StragglerEpisodes, ExplicitEpisodesAreSortedByStartThenWorker) {
  config::ClusterConfig cluster;
  cluster.workers = 3;
  cluster.stragglers = {{2, 8, 1, 2}, {1, 3, 1, 3}, {0, 8, 2, 4}};
  ClusterModel model(cluster, 1);
  std::vector<Episode> expected = {{1, 3, 1, 3}, {0, 8, 2, 4}, {2, 8, 1, 2}};
  EXPECT_EQ(model.episodes_until(100), expected);
  EXPECT_EQ(model.episodes_until(8), std::vector<Episode>{expected[0]});
}

TEST(StragglerEpisodes, DoNotDependOnTheOrderOfQueries) {
  ClusterModel far_first(random_cluster(3), 5);
  ClusterModel near_first(random_cluster(3), 5);
  std::vector<Episode> far = far_first.episodes_until(100);
  std::vector<Episode> near_then = near_first.episodes_until(10);
  EXPECT_EQ(far_first.episodes_until(10), near_then);
  EXPECT_EQ(near_first.episodes_until(100), far);
  ASSERT_GT(far.size(), near_then.size());  // the scenario does have episodes to compare
}

TEST(StragglerEpisodes, SpeedsDoNotDependOnTheOrderOfQueries) {
  ClusterModel forward(random_cluster(2), 9);
  ClusterModel backward(random_cluster(2), 9);
  std::vector<double> reversed;
  for (int t = 300; t >= 0; --t) reversed.push_back(backward.speed(1, t));
  for (int t = 0; t <= 300; ++t)
    EXPECT_EQ(forward.speed(1, t), reversed[static_cast<size_t>(300 - t)]);
}

TEST(StragglerEpisodes, EachWorkerHasItsOwnStream) {
  std::vector<Episode> small = ClusterModel(random_cluster(2), 5).episodes_until(200);
  std::vector<Episode> large = ClusterModel(random_cluster(6), 5).episodes_until(200);
  EXPECT_EQ(of_worker(small, 1), of_worker(large, 1));
  EXPECT_NE(of_worker(large, 0), of_worker(large, 1));
  EXPECT_NE(ClusterModel(random_cluster(2), 6).episodes_until(200), small);
}

TEST(StragglerEpisodes, FollowTheConfiguredDistributions) {
  ClusterModel model(random_cluster(1), 3);
  constexpr double horizon = 60000;  // 6000 episodes expected at 6 per minute
  std::vector<Episode> episodes = model.episodes_until(horizon);
  EXPECT_NEAR(static_cast<double>(episodes.size()), 6000, 300);
  double duration_sum = 0;
  double slowdown_sum = 0;
  for (const Episode& episode : episodes) {
    ASSERT_GE(episode.slowdown, 2);
    ASSERT_LE(episode.slowdown, 4);
    ASSERT_GT(episode.duration, 0);
    duration_sum += episode.duration;
    slowdown_sum += episode.slowdown;
  }
  auto count = static_cast<double>(episodes.size());
  EXPECT_NEAR(duration_sum / count, 5, 0.25);
  EXPECT_NEAR(slowdown_sum / count, 3, 0.05);
}

TEST(StragglerEpisodes, SlowTheWorkerWhileActive) {
  ClusterModel model(random_cluster(1), 3);
  std::vector<Episode> episodes = model.episodes_until(120);
  ASSERT_FALSE(episodes.empty());
  const Episode& first = episodes.front();
  EXPECT_EQ(model.speed(0, std::nextafter(first.start, 0.0)), 1.0);
  EXPECT_EQ(model.speed(0, first.start), 1.0 / first.slowdown);
}

TEST(StragglerEpisodes, InfiniteHorizonNeedsNoRandomEpisodes) {
  EXPECT_THROW(ClusterModel(random_cluster(1), 1).episodes_until(kForever), std::invalid_argument);
  config::ClusterConfig fixed;
  fixed.workers = 1;
  fixed.stragglers = {{0, 1e6, 1, 2}};
  EXPECT_EQ(ClusterModel(fixed, 1).episodes_until(kForever).size(), 1u);
}

}  // namespace
}  // namespace hetps::cluster
