#include "cluster/validate.h"

#include <cmath>
#include <functional>
#include <stdexcept>

#include <gtest/gtest.h>

#include "cluster/cluster_model.h"

namespace hetps::cluster {
namespace {

struct Case {
  std::function<void(config::ClusterConfig&)> change;
  std::string message;
};

TEST(ClusterValidation, DefaultsAreValid) { EXPECT_NO_THROW(validate(config::ClusterConfig{})); }

TEST(ClusterValidation, RandomStragglersMayKeepAWorkerInOneEpisodeAtATimeOnAverage) {
  config::ClusterConfig cluster;
  cluster.random_stragglers.mean_duration = 5;
  cluster.random_stragglers.rate_per_min = 12;
  EXPECT_NO_THROW(validate(cluster));
}

TEST(ClusterValidation, EachErrorNamesKeyValueAndRule) {
  const std::vector<Case> cases = {
      {[](auto& c) { c.workers = 0; }, "cluster.workers = 0: must be at least 1"},
      {[](auto& c) { c.servers = -2; }, "cluster.servers = -2: must be at least 1"},
      {[](auto& c) {
         c.speeds = {1, -0.5};
       },
       "cluster.speeds[1] = -0.5: must be a finite number > 0"},
      {[](auto& c) { c.speeds = {NAN}; }, "cluster.speeds[0] = nan: must be a finite number > 0"},
      {[](auto& c) { c.speeds = {}; }, "cluster.speeds is empty: give at least one value"},
      {[](auto& c) { c.worker_gflops = 0; },
       "cluster.worker_gflops = 0: must be a finite number > 0"},
      {[](auto& c) { c.compute_noise = -0.1; },
       "cluster.compute_noise = -0.1: must be a finite number >= 0"},
      {[](auto& c) {
         c.link_gbps = {10, 0};
       },
       "cluster.link_gbps[1] = 0: must be a number > 0 (inf: an ideal link)"},
      {[](auto& c) { c.link_latency_ms = {-1}; },
       "cluster.link_latency_ms[0] = -1: must be a finite number >= 0"},
      {[](auto& c) { c.server_gbps = NAN; },
       "cluster.server_gbps = nan: must be a number > 0 (inf: an ideal link)"},
      {[](auto& c) { c.server_latency_ms = -3; },
       "cluster.server_latency_ms = -3: must be a finite number >= 0"},
      {[](auto& c) { c.apply_gbps = 0; }, "cluster.apply_gbps = 0: must be a finite number > 0"},
      {[](auto& c) {
         c.stragglers = {{0, 0, 1, 2}, {8, 0, 1, 2}};
       },
       "cluster.stragglers[1].worker = 8: must be in [0, 8) (cluster.workers)"},
      {[](auto& c) {
         c.stragglers = {{-1, 0, 1, 2}};
       },
       "cluster.stragglers[0].worker = -1: must be in [0, 8) (cluster.workers)"},
      {[](auto& c) {
         c.stragglers = {{0, -5, 1, 2}};
       },
       "cluster.stragglers[0].start = -5: must be a finite number >= 0"},
      {[](auto& c) {
         c.stragglers = {{0, 0, 0, 2}};
       },
       "cluster.stragglers[0].duration = 0: must be a finite number > 0"},
      {[](auto& c) {
         c.stragglers = {{0, 0, 1, 0.5}};
       },
       "cluster.stragglers[0].slowdown = 0.5: must be a finite number >= 1"},
      {[](auto& c) {
         c.failures = {{8, 0, "crash"}};
       },
       "cluster.failures[0].worker = 8: must be in [0, 8) (cluster.workers)"},
      {[](auto& c) {
         c.failures = {{2, 1, "crash"}, {3, 1, "hang"}, {2, 4, "hang"}};
       },
       "cluster.failures[2].worker = 2: already fails in cluster.failures[0]; a worker fails "
       "once"},
      {[](auto& c) {
         c.failures = {{2, NAN, "crash"}};
       },
       "cluster.failures[0].time = nan: must be a finite number >= 0"},
      {[](auto& c) {
         c.failures = {{2, 1, "freeze"}};
       },
       "cluster.failures[0].kind = \"freeze\": must be \"crash\" or \"hang\""},
      {[](auto& c) {
         c.servers = 2;
         c.shard_failures = {{2, 1}};
       },
       "cluster.shard_failures[0].shard = 2: must be in [0, 2) (cluster.servers)"},
      {[](auto& c) {
         c.servers = 3;
         c.shard_failures = {{1, 1}, {0, 2}, {1, 4}};
       },
       "cluster.shard_failures[2].shard = 1: already fails in cluster.shard_failures[0]; a shard "
       "fails once"},
      {[](auto& c) {
         c.shard_failures = {{0, NAN}};
       },
       "cluster.shard_failures[0].time = nan: must be a finite number >= 0"},
      {[](auto& c) { c.random_stragglers.rate_per_min = -1; },
       "cluster.random_stragglers.rate_per_min = -1: must be a finite number >= 0"},
      {[](auto& c) { c.random_stragglers.rate_per_min = 13; },
       "cluster.random_stragglers.rate_per_min = 13: with mean_duration = 5 s a worker would be "
       "in 1.08 episodes at once on average (rate_per_min × mean_duration / 60), and "
       "overlapping episodes multiply: must be at most 12 for this mean_duration"},
      {[](auto& c) { c.random_stragglers.mean_duration = 0; },
       "cluster.random_stragglers.mean_duration = 0: must be a finite number > 0"},
      {[](auto& c) { c.random_stragglers.slowdown_min = 0.9; },
       "cluster.random_stragglers.slowdown_min = 0.9: must be a finite number >= 1"},
      {[](auto& c) { c.random_stragglers.slowdown_max = 1.5; },
       "cluster.random_stragglers.slowdown_max = 1.5: must be a finite number >= slowdown_min "
       "(2)"},
  };
  for (const Case& c : cases) {
    config::ClusterConfig cluster;
    c.change(cluster);
    try {
      validate(cluster);
      ADD_FAILURE() << "no error; expected: " << c.message;
    } catch (const std::invalid_argument& error) {
      EXPECT_EQ(std::string(error.what()), c.message);
    }
  }
}

TEST(ClusterValidation, ModelRejectsAnInvalidConfig) {
  config::ClusterConfig cluster;
  cluster.workers = 2;
  cluster.stragglers = {{2, 0, 1, 2}};
  EXPECT_THROW(ClusterModel(cluster, 1), std::invalid_argument);
}

}  // namespace
}  // namespace hetps::cluster
