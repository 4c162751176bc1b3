#include <gtest/gtest.h>

#include <vector>

#include "engine/sim_network.h"

namespace hetps::engine {
namespace {

// Two workers (10 Gbps, 1 ms; and 1 Gbps, 1 ms) and one server shard (10 Gbps, 0 ms).
cluster::ClusterModel fast_and_slow_worker() {
  config::ClusterConfig cluster;
  cluster.workers = 2;
  cluster.link_gbps = {10, 1};
  cluster.link_latency_ms = {1, 1};
  cluster.server_gbps = 10;
  cluster.server_latency_ms = 0;
  return cluster::ClusterModel(cluster, 1);
}

constexpr double kMessageBytes = 1.25e6;  // 1 ms on 10 Gbps, 10 ms on 1 Gbps

// `workers` workers and one server shard, every link 10 Gbps, with the latencies given.
cluster::ClusterModel ten_gbps_everywhere(int workers, double worker_latency_ms,
                                          double server_latency_ms) {
  config::ClusterConfig cluster;
  cluster.workers = workers;
  cluster.link_gbps = {10};
  cluster.link_latency_ms = {worker_latency_ms};
  cluster.server_gbps = 10;
  cluster.server_latency_ms = server_latency_ms;
  return cluster::ClusterModel(cluster, 1);
}

TEST(SimNetworkTest, OneMessageTakesItsSlowerLinkPlusLatency) {
  auto cluster = fast_and_slow_worker();
  SimNetwork network(cluster, 1);
  EXPECT_DOUBLE_EQ(network.send(0, network.server_node(0), kMessageBytes, 0.0), 0.002);
  SimNetwork fresh(cluster, 1);
  EXPECT_DOUBLE_EQ(fresh.send(1, fresh.server_node(0), kMessageBytes, 0.0), 0.011);
}

// A message waits for the sender's latency and the receiver's: each end's own, added up, in
// either direction.
TEST(SimNetworkTest, TheLatenciesOfBothEndsAddUp) {
  const cluster::ClusterModel cluster = ten_gbps_everywhere(1, 1, 2);
  SimNetwork network(cluster, 1);
  // 1 ms of transfer on 10 Gbps, then 1 + 2 ms of latency.
  EXPECT_NEAR(network.send(0, network.server_node(0), kMessageBytes, 0.0), 0.004, 1e-12);
  SimNetwork fresh(cluster, 1);
  EXPECT_NEAR(fresh.send(fresh.server_node(0), 0, kMessageBytes, 0.0), 0.004, 1e-12);
}

TEST(SimNetworkTest, MessagesQueueOnABusyUplink) {
  auto cluster = fast_and_slow_worker();
  SimNetwork network(cluster, 1);
  network.send(1, network.server_node(0), kMessageBytes, 0.0);  // uplink busy until 0.010
  EXPECT_DOUBLE_EQ(network.send(1, network.server_node(0), kMessageBytes, 0.0), 0.021);
}

TEST(SimNetworkTest, ASlowSenderDoesNotHoldTheServersDownlink) {
  auto cluster = fast_and_slow_worker();
  SimNetwork network(cluster, 1);
  // The slow worker's message trickles in until 0.011; the server's downlink is busy with it
  // only for 1 ms of transfer (from 0.001), so the fast worker's message queues only that long.
  EXPECT_DOUBLE_EQ(network.send(1, network.server_node(0), kMessageBytes, 0.0), 0.011);
  EXPECT_DOUBLE_EQ(network.send(0, network.server_node(0), kMessageBytes, 0.0), 0.003);
}

// A push is one message per shard, each its own size (a compressed push's entries are not
// spread evenly): it has arrived when the last shard has its bytes.
TEST(SimNetworkTest, APushArrivesWhenEveryShardHasItsBytes) {
  auto cluster = fast_and_slow_worker();
  SimNetwork network(cluster, 2);
  const std::vector<double> uneven = {kMessageBytes, kMessageBytes / 4};
  // On the slow worker's uplink 10 ms for shard 0's bytes, then 2.5 ms for shard 1's; 1 ms of
  // latency.
  EXPECT_DOUBLE_EQ(network.send_to_servers(1, uneven, 0.0), 0.0135);
  SimNetwork fresh(cluster, 2);
  const std::vector<double> all_on_shard_0 = {kMessageBytes / 4, 0.0};
  EXPECT_DOUBLE_EQ(fresh.send_to_servers(1, all_on_shard_0, 0.0), 0.0035);
}

TEST(SimNetworkTest, TwoFastSendersShareTheServersDownlink) {
  const cluster::ClusterModel cluster = ten_gbps_everywhere(2, 0, 0);
  SimNetwork network(cluster, 1);
  EXPECT_DOUBLE_EQ(network.send(0, network.server_node(0), kMessageBytes, 0.0), 0.001);
  EXPECT_DOUBLE_EQ(network.send(1, network.server_node(0), kMessageBytes, 0.0), 0.002);
}

}  // namespace
}  // namespace hetps::engine
