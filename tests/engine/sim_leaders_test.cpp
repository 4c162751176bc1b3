// Leaders on the simulator (protocol.h, "Leaders"), where every byte and every round is exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "leader_rounds.h"
#include "small_run.h"

namespace hetps::testing {
namespace {

class SimLeadersTest : public ::testing::Test {
 protected:
  const protocol::ProtocolRegistration leader_rounds_ = LeaderRounds::registration();

  static config::Config leaders_config(int split) {
    config::Config config = small_config("leader_rounds");
    config.protocol.params["split"] = static_cast<double>(split);
    config.cluster.workers = 3;
    config.cluster.speeds = {1.0, 0.5, 0.25};
    config.train.max_samples = 3 * 16 * 30;
    return config;
  }
  static int64_t model_bytes() { return (784 * 10 + 10) * sizeof(float); }
};

TEST_F(SimLeadersTest, OneCommunityOfEveryoneIsBspWithTheMeanTakenAtTheLeader) {
  const config::Config config = leaders_config(3);
  const Outcome leaders = run_small(config);
  config::Config bsp_config = config;
  bsp_config.protocol.name = "bsp";
  bsp_config.protocol.params.clear();
  const Outcome bsp = run_small(bsp_config);

  const int64_t rounds = 30;
  EXPECT_EQ(leaders.summary.updates, rounds);
  EXPECT_EQ(leaders.log.evals.back().model_hash, bsp.log.evals.back().model_hash);
  // One push per round reaches the server; the two members send theirs to the leader, and
  // every round's model reaches the server's link once (all three pull the first).
  EXPECT_EQ(leaders.summary.bytes_to_server, rounds * model_bytes());
  EXPECT_EQ(bsp.summary.bytes_to_server, 3 * rounds * model_bytes());
  EXPECT_EQ(leaders.summary.bytes_from_server, (3 + rounds) * model_bytes());
  EXPECT_EQ(leaders.summary.bytes_worker_to_worker, 2 * 2 * rounds * model_bytes());
}

TEST_F(SimLeadersTest, CommunitiesDoNotWaitForEachOther) {
  config::Config config = leaders_config(2);
  config.cluster.workers = 4;
  config.cluster.speeds = {1.0, 1.0, 0.25, 0.25};
  config.train.max_samples = 4 * 16 * 30;
  const Outcome leaders = run_small(config);
  EXPECT_EQ(leaders.summary.stop_reason, "max_samples");
  // While the slow community computes one round, the fast one applies about four.
  EXPECT_GE(leaders.summary.max_staleness, 3);
  EXPECT_EQ(leaders.summary.bytes_to_server, leaders.summary.updates * model_bytes());
}

// The run's virtual length without failures, to place a failure in the middle of it.
double midway(const config::Config& config) { return run_small(config).summary.total_time / 2; }

TEST_F(SimLeadersTest, ARoundGoesOnWithoutADeadMember) {
  config::Config config = leaders_config(3);
  config.cluster.failures = {{.worker = 2, .time = midway(config), .kind = "crash"}};
  const Outcome leaders = run_small(config);
  EXPECT_EQ(leaders.summary.stop_reason, "max_samples");
  EXPECT_GT(leaders.summary.updates, 30) << "rounds after the crash hold two workers' samples";
}

TEST_F(SimLeadersTest, MembersOfADeadLeaderPullFromTheServerAndGoOn) {
  config::Config config = leaders_config(3);
  config.cluster.failures = {{.worker = 0, .time = midway(config), .kind = "crash"}};
  const Outcome leaders = run_small(config);
  EXPECT_EQ(leaders.summary.stop_reason, "max_samples");
  EXPECT_GT(leaders.summary.updates, 30);
}

}  // namespace
}  // namespace hetps::testing
