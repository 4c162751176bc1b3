#include <gtest/gtest.h>

#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "cluster/cluster_model.h"
#include "engine/injected_delays.h"
#include "engine/sim_network.h"

namespace hetps::engine {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kMegabyte = 1.25e6;  // 1 ms on 10 Gbps
constexpr size_t kMegabyteFloats = 312'500;
constexpr uint64_t kSeed = 1;
const std::vector<params::KeyRange> kOneShard = {{0, kMegabyteFloats}};

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
  InjectedDelays delays(two_workers(), kSeed, kOneShard);
  EXPECT_FALSE(delays.pads_any_compute());
  delays.set_calibrated_step(0.1);
  EXPECT_EQ(delays.compute_end(0, 3.0, 5), 3.0);
  EXPECT_EQ(delays.compute_end(1, 3.0, 5), 3.0);
}

TEST(InjectedDelaysTest, HalfSpeedTakesTwiceTheCalibratedSteps) {
  config::ClusterConfig cluster = two_workers();
  cluster.speeds = {1.0, 0.5};
  InjectedDelays delays(cluster, kSeed, kOneShard);
  EXPECT_TRUE(delays.pads_any_compute());
  delays.set_calibrated_step(0.1);
  EXPECT_DOUBLE_EQ(delays.compute_end(1, 2.0, 3), 2.0 + 2 * 0.1 * 3);
  EXPECT_EQ(delays.compute_end(0, 2.0, 3), 2.0);
}

TEST(InjectedDelaysTest, ASpeedAboveOneIsNamedAsNotInjected) {
  config::ClusterConfig cluster = two_workers();
  cluster.speeds = {1.0, 0.5};
  EXPECT_FALSE(speeds_above_one_warning(cluster).has_value());
  cluster.speeds = {1.0, 4.0};
  const std::optional<std::string> warning = speeds_above_one_warning(cluster);
  ASSERT_TRUE(warning.has_value());
  EXPECT_NE(warning->find("cluster.speeds gives worker 1 speed 4"), std::string::npos) << *warning;
  EXPECT_NE(warning->find("Divide cluster.speeds by 4"), std::string::npos) << *warning;
}

TEST(InjectedDelaysTest, ATraceThatTakesAWorkerAboveOneIsNamed) {
  config::ClusterConfig cluster = two_workers();
  cluster.speeds = {1.0, 0.5};
  cluster.trace = ::testing::TempDir() + "hetps_trace_above_one.csv";
  // Worker 1 at 0.5 x 1.5 stays below 1; worker 0 at 1 x 3 from time 10 does not.
  std::ofstream(cluster.trace) << "time,worker,speed\n0,1,1.5\n0,0,0.5\n10,0,3\n20,0,1\n";
  const std::optional<std::string> warning = speeds_above_one_warning(cluster);
  ASSERT_TRUE(warning.has_value());
  EXPECT_NE(warning->find("cluster.speeds (1) x cluster.trace (3) gives worker 0 speed 3"),
            std::string::npos)
      << *warning;
  std::ofstream(cluster.trace) << "time,worker,speed\n0,1,1.5\n0,0,0.5\n";
  EXPECT_FALSE(speeds_above_one_warning(cluster).has_value());
}

TEST(InjectedDelaysTest, AStragglerEpisodePadsOnlyItsWorker) {
  config::ClusterConfig cluster = two_workers();
  cluster.stragglers = {{.worker = 1, .start = 1.0, .duration = 10.0, .slowdown = 4.0}};
  InjectedDelays delays(cluster, kSeed, kOneShard);
  EXPECT_TRUE(delays.pads_any_compute());
  delays.set_calibrated_step(0.5);
  // Two steps from 0.5: half a second of work at speed 1 until the episode begins at 1.0, the
  // other half at speed 1/4.
  EXPECT_DOUBLE_EQ(delays.compute_end(1, 0.5, 2), 1.0 + 4 * 0.5);
  EXPECT_EQ(delays.compute_end(0, 0.5, 2), 0.5);
}

TEST(InjectedDelaysTest, IdealLinksDelayNothing) {
  InjectedDelays delays(two_workers(), kSeed,
                        {{0, kMegabyteFloats / 2}, {kMegabyteFloats / 2, kMegabyteFloats}});
  EXPECT_EQ(delays.pull_arrival(0, 1.5), 1.5);
  EXPECT_EQ(delays.pull_arrival(1, 1.5), 1.5);
  EXPECT_EQ(delays.push_arrival(0, 2.0, nullptr), 2.0);
  EXPECT_EQ(delays.push_arrival(1, 2.0, nullptr), 2.0);
}

// The threads engine's workers read the time, then queue for the network's lock, so two pushes
// can reach the server's shared downlink out of time order; an ideal link must still delay
// neither.
TEST(InjectedDelaysTest, IdealLinksDelayNothingWhateverOrderPushesComeIn) {
  InjectedDelays delays(two_workers(), kSeed, kOneShard);
  EXPECT_EQ(delays.push_arrival(0, 5.0, nullptr), 5.0);
  EXPECT_EQ(delays.push_arrival(1, 4.0, nullptr), 4.0);
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
  InjectedDelays delays(finite_links(), kSeed, kOneShard);
  EXPECT_DOUBLE_EQ(delays.push_arrival(0, 0.0, nullptr), 0.002);  // 1 ms on the wire, 1 ms latency
  // Behind the first on both links: its uplink is free at 0.001, the server's downlink at 0.002.
  EXPECT_DOUBLE_EQ(delays.push_arrival(0, 0.0, nullptr), 0.003);
  EXPECT_DOUBLE_EQ(delays.pull_arrival(1, 0.0), 0.002);
}

TEST(InjectedDelaysTest, FiniteLinksQueueAsInTheSimulator) {
  const config::ClusterConfig cluster = finite_links();
  InjectedDelays delays(cluster, kSeed,
                        {{0, kMegabyteFloats / 4}, {kMegabyteFloats / 4, kMegabyteFloats}});
  const cluster::ClusterModel model(cluster, kSeed);
  SimNetwork network(model, 2);
  const std::vector<double> shard_bytes = {kMegabyte / 4, kMegabyte * 3 / 4};

  EXPECT_DOUBLE_EQ(delays.pull_arrival(0, 0.0), network.send_from_servers(0, shard_bytes, 0.0));
  EXPECT_DOUBLE_EQ(delays.pull_arrival(1, 0.0), network.send_from_servers(1, shard_bytes, 0.0));
  EXPECT_DOUBLE_EQ(delays.push_arrival(1, 0.001, nullptr),
                   network.send_to_servers(1, shard_bytes, 0.001));
  EXPECT_DOUBLE_EQ(delays.push_arrival(0, 0.0015, nullptr),
                   network.send_to_servers(0, shard_bytes, 0.0015));
}

// A compressed push carries 8 bytes per kept entry, each shard's to that shard.
TEST(InjectedDelaysTest, ACompressedPushTakesItsSparseBytesTime) {
  InjectedDelays delays(finite_links(), kSeed, kOneShard);
  worker::SparseDelta sparse{.dense_size = kMegabyteFloats, .indices = {}, .values = {}};
  for (uint32_t i = 0; i < 1000; ++i) {
    sparse.indices.push_back(i);
    sparse.values.push_back(1.0f);
  }
  // 8000 bytes: 6.4 µs on the wire, 1 ms latency.
  EXPECT_DOUBLE_EQ(delays.push_arrival(0, 0.0, &sparse), 0.001 + 8000 / 1.25e9);
}

}  // namespace
}  // namespace hetps::engine
