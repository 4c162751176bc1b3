// Several server shards on the mpi engine (cluster.servers > 1): rank 0 runs the protocol and
// holds shard 0, the next ranks hold the others. Each key's arithmetic does not depend on where
// it is applied, so a run that is deterministic gives the bits of one server.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "engine/compressed_rounds.h"
#include "engine/engine.h"
#include "engine/leader_rounds.h"
#include "engine/shard_failures.h"
#include "engine/small_run.h"
#include "every_rank.h"
#include "mpi/session.h"
#include "protocol/registry.h"

namespace hetps::testing {
namespace {

config::Config sharded_config(const std::string& protocol, int servers) {
  config::Config config = small_config(protocol);
  config.engine = "mpi";
  config.cluster.servers = servers;
  config.cluster.workers = mpi::world_size() - servers;
  config.cluster.speeds = {1.0};
  config.train.max_samples = config.cluster.workers * 16 * 24;
  config.train.eval_interval = 1000;  // evaluations at the start and the end only
  return config;
}

// The same job with one server, on the simulator.
Outcome on_one_simulated_server(config::Config config) {
  config.engine = "sim";
  config.cluster.servers = 1;
  return run_small(config);
}

void expect_same_model(const Outcome& sharded, const Outcome& one_server, const std::string& what) {
  if (mpi::world_rank() != 0) return;
  EXPECT_EQ(sharded.summary.stop_reason, "max_samples") << what;
  EXPECT_EQ(sharded.summary.updates, one_server.summary.updates) << what;
  ASSERT_EQ(sharded.log.evals.size(), one_server.log.evals.size()) << what;
  for (size_t e = 0; e < sharded.log.evals.size(); ++e) {
    EXPECT_EQ(sharded.log.evals[e].model_hash, one_server.log.evals[e].model_hash)
        << what << ", evaluation " << e;
  }
}

// Plain SGD whose learning rate halves after four updates: the optimizer change must reach
// every shard between the same two applies.
class HalvingLearningRate : public protocol::Protocol {
 public:
  std::string name() const override { return "halving_lr"; }
  void start(const protocol::RunShape&, protocol::Actions&) override {}
  void on_pull_request(int worker, protocol::Actions& actions) override {
    actions.reply_pull(worker, {});
  }
  void on_update(const protocol::UpdateInfo& update, protocol::Actions& actions) override {
    actions.apply({update.kind, {update.id}, {1.0}});
    if (++updates_ == 4) actions.set_optimizer({0.5, 0.5});
  }
  void on_worker_failed(int, protocol::Actions&) override {}
  nlohmann::json save_state() const override { return {{"updates", updates_}}; }
  void restore_state(const nlohmann::json& state) override { updates_ = state.at("updates"); }

  static protocol::ProtocolRegistration registration() {
    return protocol::ProtocolRegistration(
        {"halving_lr",
         "test: SGD whose learning rate halves after four updates",
         {},
         [](const config::ProtocolParams&) { return std::make_unique<HalvingLearningRate>(); }});
  }

 private:
  int updates_ = 0;
};

// One worker and a shard on every other rank: with one worker every protocol is
// deterministic, and every shard order (apply, optimizer change, reply, evaluation) is used.
// A compressed push (topk_local_sgd) gives each shard the kept entries of its key range.
TEST(MpiShardsTest, OneWorkerOnShardRanksGetsTheBitsOfOneServer) {
  const auto halving = HalvingLearningRate::registration();
  const auto topk_local_sgd = compressed_rounds_registration();
  for (const char* protocol :
       {"bsp", "asp", "ssp", "local_sgd", "sync_switch", "halving_lr", "topk_local_sgd"}) {
    config::Config config = sharded_config(protocol, mpi::world_size() - 1);
    config.train.momentum = 0.9;
    if (std::string(protocol) == "sync_switch") config.protocol.params["bsp_fraction"] = 0.5;
    const Outcome sharded = run_small(config);
    const Outcome one_server = on_one_simulated_server(config);
    expect_same_model(sharded, one_server, protocol);
    if (mpi::world_rank() == 0) {
      EXPECT_EQ(sharded.summary.bytes_to_server, one_server.summary.bytes_to_server) << protocol;
    }
  }
}

TEST(MpiShardsTest, SynchronousRoundsOnTwoShardsGetTheBitsOfOneServer) {
  const auto leader_rounds = LeaderRounds::registration();
  const auto topk_local_sgd = compressed_rounds_registration();
  for (const char* protocol : {"bsp", "local_sgd", "leader_rounds", "topk_local_sgd"}) {
    config::Config config = sharded_config(protocol, 2);
    config.cluster.speeds = {1.0, 0.5};
    const Outcome sharded = run_small(config);
    // A community of every worker, its mean taken at the leader, is BSP (with fewer pushes).
    const bool led = std::string(protocol) == "leader_rounds";
    if (led) config.protocol = {"bsp", {}};
    const Outcome one_server = on_one_simulated_server(config);
    expect_same_model(sharded, one_server, protocol);
    if (mpi::world_rank() == 0 && !led) {
      EXPECT_EQ(sharded.summary.bytes_to_server, one_server.summary.bytes_to_server) << protocol;
    }
  }
}

// The fast worker crashes while its update waits at the barrier for the slow one: the shards
// drop its pushed slice (a Discard order) and the rounds go on with the other worker alone.
TEST(MpiShardsTest, ARoundOnTwoShardsDropsTheUpdateOfAWorkerThatCrashedAtTheBarrier) {
  config::Config config = sharded_config("bsp", 2);
  config.cluster.speeds = {1.0, 0.02};  // the fast worker waits at the barrier 98% of the time
  config.cluster.failures = {{.worker = 0, .time = 0.15, .kind = "crash"}};
  config.train.max_samples = 1'000'000'000;
  config.train.max_time = 0.4;
  const Outcome bsp = run_small(config);
  if (mpi::world_rank() != 0) return;
  EXPECT_EQ(bsp.summary.stop_reason, "max_time");
  ASSERT_GE(bsp.log.evals.size(), 2u);
  EXPECT_GT(bsp.log.evals.back().updates, 0);
  EXPECT_NE(bsp.log.evals.back().model_hash, bsp.log.evals.front().model_hash);
}

// A crashed worker's update is never pushed: the shards must not wait for it.
TEST(MpiShardsTest, AsynchronousTrainingOnTwoShardsGoesOnWithoutACrashedWorker) {
  config::Config config = sharded_config("asp", 2);
  config.cluster.failures = {{.worker = 1, .time = 0.0, .kind = "crash"}};
  const Outcome asp = run_small(config);
  if (mpi::world_rank() != 0) return;
  EXPECT_EQ(asp.summary.stop_reason, "max_samples");
  EXPECT_EQ(asp.summary.samples, config.train.max_samples);
}

// An injected crash of shard 1 (rank 1) at 0.2 s: rank 0's server loop logs it and ends the run
// with ShardCrashed, after stopping the workers and the shard ranks, which return as at a
// normal end; every rank then meets the others, so none hangs.
TEST(MpiShardsTest, AShardCrashEndsTheRunOnRankZeroAndEveryRankReturns) {
  config::Config config = sharded_config("asp", 2);
  config.train.max_samples = 1'000'000'000;
  config.train.max_time = 60;  // the crash must come first
  config.cluster.shard_failures = {{.shard = 1, .time = 0.2}};
  before_each_real_run()();
  CollectingListener log;
  std::optional<engine::ShardCrashed> crash;
  metrics::Summary summary;
  try {
    summary = engine::run(config, small_data(), softmax_source(784, 10, config.seed), log);
  } catch (const engine::ShardCrashed& crashed) {
    crash = crashed;
  }
  meet_everyone();
  if (mpi::world_rank() != 0) {
    EXPECT_FALSE(crash) << "only rank 0 runs the server loop";
    EXPECT_TRUE(summary.stop_reason.empty());
    return;
  }
  ASSERT_TRUE(crash) << "the run ended with " << summary.stop_reason;
  EXPECT_EQ(crash->shard(), 1);
  EXPECT_EQ(crash->time(), 0.2);
  ASSERT_FALSE(log.events.empty());
  EXPECT_EQ(log.events.back().at("type"), "shard_failed");
  EXPECT_EQ(log.events.back().at("shard"), 1);
  EXPECT_TRUE(log.timeline.empty()) << "no summary, no timeline";
}

}  // namespace
}  // namespace hetps::testing
