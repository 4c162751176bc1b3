#include "cluster/cluster_model.h"

#include <stdexcept>
#include <utility>

#include <gtest/gtest.h>

namespace hetps::cluster {
namespace {

TEST(ClusterModel, SpeedsAreCycledOverWorkers) {
  config::ClusterConfig cluster;
  cluster.workers = 5;
  cluster.speeds = {1, 0.5, 0.25};
  ClusterModel model(cluster, 1);
  EXPECT_EQ(model.workers(), 5);
  std::vector<double> expected = {1, 0.5, 0.25, 1, 0.5};
  for (int w = 0; w < 5; ++w) EXPECT_EQ(model.speed(w, 0), expected[static_cast<size_t>(w)]);
}

TEST(ClusterModel, LinksConvertGbpsAndMillisecondsAndAreCycled) {
  config::ClusterConfig cluster;
  cluster.workers = 3;
  cluster.link_gbps = {10, 1};
  cluster.link_latency_ms = {0.05};
  cluster.server_gbps = 40;
  cluster.server_latency_ms = 2;
  ClusterModel model(cluster, 1);
  EXPECT_EQ(model.worker_link(0).bytes_per_second, 1.25e9);
  EXPECT_EQ(model.worker_link(1).bytes_per_second, 1.25e8);
  EXPECT_EQ(model.worker_link(2).bytes_per_second, 1.25e9);
  EXPECT_DOUBLE_EQ(model.worker_link(2).latency_seconds, 5e-5);
  EXPECT_EQ(model.server_link().bytes_per_second, 5e9);
  EXPECT_EQ(model.server_link().latency_seconds, 0.002);
  EXPECT_THROW(model.worker_link(3), std::out_of_range);
}

TEST(ClusterModel, MovesKeepTheCluster) {
  config::ClusterConfig cluster;
  cluster.workers = 2;
  cluster.stragglers = {{1, 0, 4, 2}};
  ClusterModel original(cluster, 1);
  const ClusterModel moved(std::move(original));
  EXPECT_EQ(moved.speed(1, 1), 0.5);
  EXPECT_EQ(moved.compute_end(1, 0, 3), 5);
  config::ClusterConfig plain;
  plain.workers = 2;
  ClusterModel assigned(plain, 1);
  ClusterModel source(cluster, 1);
  assigned = std::move(source);
  EXPECT_EQ(assigned.speed(1, 1), 0.5);
  EXPECT_EQ(assigned.compute_end(1, 0, 3), 5);
}

}  // namespace
}  // namespace hetps::cluster
