#include <cmath>

#include <gtest/gtest.h>

#include "cluster/cluster_model.h"

namespace hetps::cluster {
namespace {

config::ClusterConfig noisy(double sigma) {
  config::ClusterConfig cluster;
  cluster.workers = 4;
  cluster.compute_noise = sigma;
  return cluster;
}

TEST(ClusterStepNoise, IsAFunctionOfSeedWorkerAndStepOnly) {
  ClusterModel forward(noisy(0.3), 7);
  ClusterModel backward(noisy(0.3), 7);
  std::vector<double> reversed;
  for (int64_t step = 99; step >= 0; --step) reversed.push_back(backward.step_noise(2, step));
  for (int64_t step = 0; step < 100; ++step) {
    EXPECT_EQ(forward.step_noise(2, step), reversed[static_cast<size_t>(99 - step)]);
  }
  EXPECT_NE(forward.step_noise(2, 5), forward.step_noise(3, 5));
  EXPECT_NE(forward.step_noise(2, 5), forward.step_noise(2, 6));
  EXPECT_NE(forward.step_noise(2, 5), ClusterModel(noisy(0.3), 8).step_noise(2, 5));
}

TEST(ClusterStepNoise, DoesNotDependOnTheNumberOfWorkers) {
  config::ClusterConfig wide = noisy(0.3);
  wide.workers = 64;
  EXPECT_EQ(ClusterModel(noisy(0.3), 7).step_noise(1, 12), ClusterModel(wide, 7).step_noise(1, 12));
}

TEST(ClusterStepNoise, IsLognormalWithMeanOne) {
  constexpr double sigma = 0.5;
  ClusterModel cluster(noisy(sigma), 1);
  constexpr int samples = 200000;
  double sum = 0;
  double log_sum = 0;
  double log_square_sum = 0;
  for (int step = 0; step < samples; ++step) {
    double noise = cluster.step_noise(step % 4, step);
    ASSERT_GT(noise, 0);
    sum += noise;
    log_sum += std::log(noise);
    log_square_sum += std::log(noise) * std::log(noise);
  }
  double log_mean = log_sum / samples;
  // The standard error of the mean is about 0.533 / sqrt(200000) = 0.0012.
  EXPECT_NEAR(sum / samples, 1.0, 0.005);
  EXPECT_NEAR(log_mean, -sigma * sigma / 2, 0.005);
  EXPECT_NEAR(std::sqrt(log_square_sum / samples - log_mean * log_mean), sigma, 0.005);
}

TEST(ClusterStepNoise, IsExactlyOneWithoutNoise) {
  ClusterModel cluster(noisy(0.0), 3);
  for (int64_t step = 0; step < 50; ++step) EXPECT_EQ(cluster.step_noise(1, step), 1.0);
}

}  // namespace
}  // namespace hetps::cluster
