#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "checkpoint/checkpoint_error.h"
#include "engine/sim_network.h"
#include "support/through_cbor.h"

namespace hetps::engine {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// Three workers of different links and latencies, and `servers` server shards.
cluster::ClusterModel three_uneven_workers() {
  config::ClusterConfig cluster;
  cluster.workers = 3;
  cluster.link_gbps = {10, 1, 3};
  cluster.link_latency_ms = {1, 2, 0.7};
  cluster.server_gbps = 7;
  cluster.server_latency_ms = 0.3;
  return cluster::ClusterModel(cluster, 1);
}

// Pushes and pulls that queue on every link: each returns its arrival.
std::vector<double> exchange_messages(SimNetwork& network, int rounds, double from_time) {
  std::vector<double> arrivals;
  const std::vector<double> shard_bytes = {1.1e6, 0.7e6};
  for (int r = 0; r < rounds; ++r) {
    for (int w = 0; w < 3; ++w) {
      const double time = from_time + r * 0.004 + w * 0.001 / 3;
      arrivals.push_back(network.send_to_servers(w, shard_bytes, time));
      arrivals.push_back(network.send_from_servers(w, shard_bytes, time));
      arrivals.push_back(network.send(w, (w + 1) % 3, 3.3e5, time));
    }
  }
  return arrivals;
}

TEST(SimNetworkStateTest, ARestoredNetworkQueuesMessagesAsTheSavedOneDoes) {
  const cluster::ClusterModel cluster = three_uneven_workers();
  SimNetwork original(cluster, 2);
  exchange_messages(original, 5, 0.0);
  SimNetwork restored(cluster, 2);
  restored.restore_state(testing::through_cbor(original.save_state()));
  EXPECT_EQ(restored.save_state(), original.save_state());
  const std::vector<double> expected = exchange_messages(original, 5, 0.01);
  EXPECT_EQ(exchange_messages(restored, 5, 0.01), expected);
  // Not a network that forgot its queues: a fresh one delivers sooner.
  SimNetwork fresh(cluster, 2);
  EXPECT_NE(exchange_messages(fresh, 5, 0.01), expected);
}

TEST(SimNetworkStateTest, RefusesAnotherCountOfLinks) {
  const cluster::ClusterModel cluster = three_uneven_workers();
  SimNetwork two_shards(cluster, 2);
  SimNetwork one_shard(cluster, 1);
  EXPECT_THAT([&] { one_shard.restore_state(two_shards.save_state()); },
              ThrowsMessage<checkpoint::CheckpointError>(
                  HasSubstr("the simulator's network: uplinks_free_at: holds 5 links, expected 4 "
                            "(3 workers and 1 server shards)")));
}

}  // namespace
}  // namespace hetps::engine
