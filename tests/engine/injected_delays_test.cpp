#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "cluster/cluster_model.h"
#include "engine/injected_delays.h"
#include "engine/sim_network.h"

namespace hetps::engine {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kMegabyte = 1.25e6;  // 1 ms on 10 Gbps
constexpr uint64_t kSeed = 1;

// Two workers of speed 1 on ideal links: nothing is injected until a test says otherwise.
config::ClusterConfig two_workers() {
  config::ClusterConfig cluster;
  cluster.workers = 2;
  cluster.speeds = {1.0};
  cluster.link_gbps = {kInfinity};
  cluster.link_latency_ms = {0};
  cluster.server_gbps = kInfinity;
  cluster.server_latency_ms = 0;
  return cluster;
}

TEST(InjectedDelaysTest, AWorkerOfSpeedOneIsNeverPadded) {
  InjectedDelays delays(two_workers(), kSeed, kMegabyte, {1.0});
  EXPECT_FALSE(delays.pads_any_compute());
  delays.set_calibrated_step(0.1);
  EXPECT_EQ(delays.compute_end(0, 3.0, 5), 3.0);
  EXPECT_EQ(delays.compute_end(1, 3.0, 5), 3.0);
}

TEST(InjectedDelaysTest, HalfSpeedTakesTwiceTheCalibratedSteps) {
  config::ClusterConfig cluster = two_workers();
  cluster.speeds = {1.0, 0.5};
  InjectedDelays delays(cluster, kSeed, kMegabyte, {1.0});
  EXPECT_TRUE(delays.pads_any_compute());
  delays.set_calibrated_step(0.1);
  EXPECT_DOUBLE_EQ(delays.compute_end(1, 2.0, 3), 2.0 + 2 * 0.1 * 3);
  EXPECT_EQ(delays.compute_end(0, 2.0, 3), 2.0);
}

TEST(InjectedDelaysTest, AStragglerEpisodePadsOnlyItsWorker) {
  config::ClusterConfig cluster = two_workers();
  cluster.stragglers = {{.worker = 1, .start = 1.0, .duration = 10.0, .slowdown = 4.0}};
  InjectedDelays delays(cluster, kSeed, kMegabyte, {1.0});
  EXPECT_TRUE(delays.pads_any_compute());
  delays.set_calibrated_step(0.5);
  // Two steps from 0.5: half a second of work at speed 1 until the episode begins at 1.0, the
  // other half at speed 1/4.
  EXPECT_DOUBLE_EQ(delays.compute_end(1, 0.5, 2), 1.0 + 4 * 0.5);
  EXPECT_EQ(delays.compute_end(0, 0.5, 2), 0.5);
}

TEST(InjectedDelaysTest, IdealLinksDelayNothing) {
  InjectedDelays delays(two_workers(), kSeed, kMegabyte, {0.5, 0.5});
  EXPECT_EQ(delays.pull_arrival(0, 1.5), 1.5);
  EXPECT_EQ(delays.pull_arrival(1, 1.5), 1.5);
  EXPECT_EQ(delays.push_arrival(0, 2.0), 2.0);
  EXPECT_EQ(delays.push_arrival(1, 2.0), 2.0);
}

// The threads engine's workers read the time, then queue for the network's lock, so two pushes
// can reach the server's shared downlink out of time order; an ideal link must still delay
// neither.
TEST(InjectedDelaysTest, IdealLinksDelayNothingWhateverOrderPushesComeIn) {
  InjectedDelays delays(two_workers(), kSeed, kMegabyte, {1.0});
  EXPECT_EQ(delays.push_arrival(0, 5.0), 5.0);
  EXPECT_EQ(delays.push_arrival(1, 4.0), 4.0);
}

// Worker links of 10 Gbps with 1 ms latency, server shards of 10 Gbps with none.
config::ClusterConfig finite_links() {
  config::ClusterConfig cluster = two_workers();
  cluster.link_gbps = {10};
  cluster.link_latency_ms = {1};
  cluster.server_gbps = 10;
  return cluster;
}

TEST(InjectedDelaysTest, AFiniteLinkTakesTransferTimePlusLatencies) {
  InjectedDelays delays(finite_links(), kSeed, kMegabyte, {1.0});
  EXPECT_DOUBLE_EQ(delays.push_arrival(0, 0.0), 0.002);  // 1 ms on the wire, 1 ms latency
  // Behind the first on both links: its uplink is free at 0.001, the server's downlink at 0.002.
  EXPECT_DOUBLE_EQ(delays.push_arrival(0, 0.0), 0.003);
  EXPECT_DOUBLE_EQ(delays.pull_arrival(1, 0.0), 0.002);
}

TEST(InjectedDelaysTest, FiniteLinksQueueAsInTheSimulator) {
  const config::ClusterConfig cluster = finite_links();
  const std::vector<double> shards = {0.25, 0.75};
  InjectedDelays delays(cluster, kSeed, kMegabyte, shards);
  const cluster::ClusterModel model(cluster, kSeed);
  SimNetwork network(model, static_cast<int>(shards.size()));

  EXPECT_DOUBLE_EQ(delays.pull_arrival(0, 0.0),
                   network.send_from_servers(0, kMegabyte, shards, 0.0));
  EXPECT_DOUBLE_EQ(delays.pull_arrival(1, 0.0),
                   network.send_from_servers(1, kMegabyte, shards, 0.0));
  EXPECT_DOUBLE_EQ(delays.push_arrival(1, 0.001),
                   network.send_to_servers(1, kMegabyte, shards, 0.001));
  EXPECT_DOUBLE_EQ(delays.push_arrival(0, 0.0015),
                   network.send_to_servers(0, kMegabyte, shards, 0.0015));
}

}  // namespace
}  // namespace hetps::engine
