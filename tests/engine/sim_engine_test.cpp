#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "compressed_rounds.h"
#include "engine/engine.h"
#include "small_run.h"

namespace hetps::engine {
namespace {

using testing::CollectingListener;
using testing::Outcome;
using testing::run_small;
using testing::small_config;
using testing::small_data;

TEST(SimEngineTest, SameConfigAndSeedGiveTheSameLogBitForBit) {
  for (const char* protocol : {"bsp", "asp", "ssp", "local_sgd"}) {
    auto config = small_config(protocol);
    config.cluster.random_stragglers.rate_per_min = 12;
    config.train.eval_interval = 0.5;  // stragglers stretch the run: keep evaluations few
    Outcome first = run_small(config);
    Outcome second = run_small(config);
    EXPECT_EQ(first.log.lines, second.log.lines) << protocol;
    EXPECT_GT(first.log.lines.size(), 3u) << protocol;
    config.seed = 2;
    Outcome other_seed = run_small(config);
    EXPECT_NE(first.log.evals.back().model_hash, other_seed.log.evals.back().model_hash)
        << protocol;
  }
}

TEST(SimEngineTest, BspIsNeverStaleAndSpendsTheBudgetExactly) {
  Outcome bsp = run_small(small_config("bsp"));
  EXPECT_EQ(bsp.summary.max_staleness, 0);
  EXPECT_EQ(bsp.summary.samples, 4 * 16 * 40);
  EXPECT_EQ(bsp.summary.updates, 40);
  EXPECT_EQ(bsp.summary.stop_reason, "max_samples");
  EXPECT_GT(bsp.summary.final_accuracy, bsp.log.evals.front().test_accuracy + 0.2);
}

// Speeds 1, 0.5 and 0.25 without noise: in every round worker 0 computes a quarter of worker
// 2's time and waits the rest at the barrier.
TEST(SimEngineTest, TheTimelineShowsTheFastWorkersWaitingAtTheBarrier) {
  auto config = small_config("bsp");
  config.cluster.workers = 3;
  config.cluster.speeds = {1.0, 0.5, 0.25};
  config.cluster.compute_noise = 0;
  config.train.max_samples = 3 * 16 * 20;
  Outcome bsp = run_small(config);
  ASSERT_EQ(bsp.log.timeline.size(), 3u);
  const auto seconds = [&](int w, metrics::Activity activity) {
    return testing::seconds_of(bsp.log.timeline[static_cast<size_t>(w)], activity);
  };
  EXPECT_NEAR(seconds(2, metrics::Activity::kCompute), 4 * seconds(0, metrics::Activity::kCompute),
              1e-9);
  EXPECT_NEAR(seconds(1, metrics::Activity::kCompute), 2 * seconds(0, metrics::Activity::kCompute),
              1e-9);
  // Worker 0 waits out the three quarters worker 2 computes longer, and worker 2 waits only for
  // the others' pushes and the server, never for a slower worker.
  EXPECT_GT(seconds(0, metrics::Activity::kWait),
            0.9 * 3 * seconds(0, metrics::Activity::kCompute));
  EXPECT_LT(seconds(2, metrics::Activity::kWait), 0.1 * seconds(2, metrics::Activity::kCompute));
}

// Computing inside a straggler episode shows as straggling, only there and only for its worker.
TEST(SimEngineTest, TheTimelineShowsAStragglerEpisodeAsStraggling) {
  auto config = small_config("asp");
  config.cluster.speeds = {1.0};
  const double run_time = run_small(config).summary.total_time;
  const config::StragglerEpisode episode{
      .worker = 2, .start = run_time / 4, .duration = run_time / 4, .slowdown = 4};
  config.cluster.stragglers = {episode};
  Outcome asp = run_small(config);
  ASSERT_EQ(asp.log.timeline.size(), 4u);
  for (int w = 0; w < 4; ++w) {
    const auto& intervals = asp.log.timeline[static_cast<size_t>(w)];
    const double straggled = testing::seconds_of(intervals, metrics::Activity::kStraggle);
    if (w != episode.worker) {
      EXPECT_EQ(straggled, 0.0) << "worker " << w;
      continue;
    }
    // Computing all along, but for the pulls and pushes that fall inside it.
    EXPECT_GT(straggled, 0.8 * episode.duration);
    for (const metrics::ActivityInterval& interval : intervals) {
      const bool inside =
          interval.start >= episode.start && interval.end <= episode.start + episode.duration;
      if (interval.activity == metrics::Activity::kStraggle) {
        EXPECT_TRUE(inside);
      } else if (interval.activity == metrics::Activity::kCompute) {
        EXPECT_FALSE(inside);
      }
    }
  }
}

TEST(SimEngineTest, BspWaitsForTheSlowestWorkerAndAspDoesNot) {
  Outcome bsp = run_small(small_config("bsp"));
  Outcome asp = run_small(small_config("asp"));
  EXPECT_GT(asp.summary.max_staleness, 0);
  // Same samples: BSP's rounds last as long as the speed-0.25 worker's step; ASP's fast
  // workers keep going. Three fast-ish workers at 1, 1, 0.5 against a round of 4 steps at 0.25.
  EXPECT_GT(bsp.summary.total_time, 1.8 * asp.summary.total_time);
}

TEST(SimEngineTest, BspRoundTimeIsTheSlowestStepPlusCommunication) {
  auto config = small_config("bsp");
  config.cluster.compute_noise = 0;
  config.cluster.speeds = {1.0, 0.5};
  config.cluster.workers = 2;
  config.train.max_samples = 2 * 16 * 10;
  Outcome bsp = run_small(config);
  testing::SoftmaxLearner learner(784, 10, 1);
  const double slow_step = learner.flops_per_sample() * 16 / (0.02e9 * 0.5);
  const double per_round = bsp.summary.total_time / 10;
  EXPECT_GT(per_round, slow_step);
  EXPECT_LT(per_round, slow_step * 1.15) << "communication should be ~10% of a round";
}

// SSP with bound s: a worker starts step k only once every live worker pushed k − 1 − s, so
// while one update is computed each of the 3 others pushes at most 2s + 1 updates.
TEST(SimEngineTest, SspBoundsTheStalenessThatAspLetsGrow) {
  const Outcome asp = run_small(small_config("asp"));
  for (const int s : {0, 2}) {
    auto config = small_config("ssp");
    config.protocol.params["staleness"] = static_cast<double>(s);
    const Outcome ssp = run_small(config);
    EXPECT_LE(ssp.summary.max_staleness, (2 * s + 1) * (4 - 1)) << "s = " << s;
    EXPECT_GT(ssp.summary.max_staleness, 0) << "s = " << s;
    EXPECT_GT(asp.summary.max_staleness, ssp.summary.max_staleness) << "s = " << s;
  }
}

TEST(SimEngineTest, LocalSgdCommunicatesOncePerHSteps) {
  auto config = small_config("local_sgd");
  config.protocol.params["local_steps"] = 4.0;
  Outcome local = run_small(config);
  Outcome bsp = run_small(small_config("bsp"));
  EXPECT_EQ(local.summary.samples, bsp.summary.samples);
  EXPECT_EQ(local.summary.updates * 4, bsp.summary.updates);
  EXPECT_EQ(local.summary.bytes_to_server * 4, bsp.summary.bytes_to_server);
  EXPECT_GT(local.summary.final_accuracy, 0.5);
}

// keep_ratio = 1 is today's dense path, bit for bit: the same model and bytes as local SGD.
TEST(SimEngineTest, AKeepRatioOfOneIsLocalSgdBitForBit) {
  const auto topk_local_sgd = testing::compressed_rounds_registration();
  auto config = small_config("topk_local_sgd");
  config.protocol.params["keep_ratio"] = 1.0;
  config.protocol.params["local_steps"] = 4.0;
  config.train.eval_interval = 1000;  // evaluations at the start and the end only
  const Outcome dense = run_small(config);
  config.protocol = {"local_sgd", {{"local_steps", 4.0}}};
  const Outcome local_sgd = run_small(config);
  EXPECT_EQ(dense.log.lines, local_sgd.log.lines);
  EXPECT_EQ(dense.summary.bytes_to_server, local_sgd.summary.bytes_to_server);
}

// A push's network time comes from its bytes on the wire: on a worker's 0.01 Gbps link (the
// server's ideal), one compressed push of 785 entries (6280 bytes) takes 25120 bytes' time less
// than a dense one of 7850 floats, and nothing else in a round changes.
TEST(SimEngineTest, ACompressedPushTakesItsSparseBytesTimeOnTheLink) {
  const auto topk_local_sgd = testing::compressed_rounds_registration();
  auto config = small_config("topk_local_sgd");
  config.cluster.workers = 1;
  config.cluster.speeds = {1.0};
  config.cluster.compute_noise = 0;
  config.cluster.link_gbps = {0.01};
  config.cluster.link_latency_ms = {0.0};
  config.cluster.server_gbps = std::numeric_limits<double>::infinity();
  config.cluster.server_latency_ms = 0.0;
  config.train.max_samples = 16 * 2 * 10;  // 10 rounds
  config.train.eval_interval = 1000;
  const Outcome compressed = run_small(config);
  config.protocol.params["keep_ratio"] = 1.0;
  const Outcome dense = run_small(config);
  ASSERT_EQ(compressed.summary.updates, 10);
  const double saved_per_push = (7850 * 4 - 785 * 8) / (0.01e9 / 8);
  EXPECT_NEAR(dense.summary.total_time - compressed.summary.total_time, 10 * saved_per_push, 1e-9);
}

TEST(SimEngineTest, ACompressedGradientIsRefusedNamingTheProtocol) {
  const auto topk_local_sgd = testing::compressed_rounds_registration();
  auto config = small_config("topk_local_sgd");
  config.protocol.params["gradient"] = 1.0;
  EXPECT_THAT([&] { run_small(config); },
              ::testing::ThrowsMessage<std::invalid_argument>(::testing::AllOf(
                  ::testing::HasSubstr("protocol.name = \"topk_local_sgd\""),
                  ::testing::HasSubstr("keep_ratio = 0.1"), ::testing::HasSubstr("gradient"))));
}

// spec/sync-switch.md: on the simulator a switch costs `cluster.switch_overhead_pulls` pulls of
// the model over idle links, here two latencies and 7,850 floats at 10 Gbit/s each. No worker
// starts a step after the switch before the servers are free again; with the switch free, some
// do.
TEST(SimEngineTest, ASwitchHoldsTheServersForItsOverhead) {
  auto config = small_config("sync_switch");
  config.protocol.params["bsp_fraction"] = 0.5;
  config.cluster.switch_overhead_pulls = 40;
  const double overhead = 40 * (2 * 0.05e-3 + 7850 * 4 / (10e9 / 8));
  const auto steps_begun_within_overhead = [&](const Outcome& run) {
    const auto phases = testing::events_of_type(run, "phase");
    EXPECT_EQ(phases.size(), 1u);
    const double switched = phases.at(0).at("time").get<double>();
    int begun = 0;
    for (const auto& intervals : run.log.timeline) {
      for (const metrics::ActivityInterval& interval : intervals) {
        const bool within = interval.start > switched && interval.start < switched + overhead;
        if (interval.activity == metrics::Activity::kCompute && within) ++begun;
      }
    }
    return begun;
  };
  const Outcome charged = run_small(config);
  EXPECT_NEAR(testing::events_of_type(charged, "phase").at(0).at("overhead_s").get<double>(),
              overhead, 1e-12);
  EXPECT_EQ(steps_begun_within_overhead(charged), 0);
  config.cluster.switch_overhead_pulls = 0;
  const Outcome free = run_small(config);
  EXPECT_EQ(testing::events_of_type(free, "phase").at(0).at("overhead_s"), 0.0);
  EXPECT_GT(steps_begun_within_overhead(free), 0);
  EXPECT_GT(charged.summary.total_time, free.summary.total_time);
}

TEST(SimEngineTest, StopsAtMaxTime) {
  auto config = small_config("asp");
  config.train.max_time = 0.1;
  Outcome asp = run_small(config);
  EXPECT_EQ(asp.summary.stop_reason, "max_time");
  EXPECT_DOUBLE_EQ(asp.summary.total_time, 0.1);
  EXPECT_LT(asp.summary.samples, config.train.max_samples);
}

TEST(SimEngineTest, UnknownProtocolIsABadConfiguration) {
  auto config = small_config("nope");
  CollectingListener log;
  EXPECT_THROW(run(config, small_data(), testing::softmax_source(784, 10, 1), log),
               std::invalid_argument);
}

// An event due at train.max_time itself still happens: here the evaluation at 0.1 s, which
// reaches the target and so ends the run for that reason, not for the time limit.
TEST(SimEngineTest, AnEvaluationDueAtMaxTimeStillRunsAndCanReachTheTarget) {
  auto config = small_config("asp");
  config.train.max_time = 0.1;  // the second evaluation's instant: 0.05 + 0.05
  const Outcome plain = run_small(config);
  ASSERT_EQ(plain.log.evals.size(), 3u);
  ASSERT_EQ(plain.log.evals.back().time, 0.1);
  const double at_max_time = plain.log.evals.back().test_accuracy;
  for (size_t e = 0; e + 1 < plain.log.evals.size(); ++e) {
    ASSERT_LT(plain.log.evals[e].test_accuracy, at_max_time) << "the target came earlier";
  }
  config.train.stop_at_target = true;
  config.train.target_accuracy = at_max_time;
  const Outcome stopped = run_small(config);
  EXPECT_EQ(stopped.summary.stop_reason, "target");
  EXPECT_EQ(stopped.summary.total_time, 0.1);
}

// A stall warning due at the very instant of another event is found before that event: the
// hung worker's wait began at 0 (its first reply), so its warning and the second evaluation
// are both due at 0.0625 s (exact in binary), and the log has the warning first.
TEST(SimEngineTest, AStallWarningDueAtAnEventsInstantIsLoggedBeforeIt) {
  auto config = small_config("asp");
  config.cluster.failures = {{.worker = 0, .time = 0.0, .kind = "hang"}};
  config.train.eval_interval = 0.03125;
  config.run.stall_warning_s = 0.0625;
  config.run.stall_timeout_s = 1000;
  const Outcome asp = run_small(config);
  std::vector<std::string> at_the_instant;  // the records at 0.0625 s, in the log's order
  for (const std::string& line : asp.log.lines) {
    const nlohmann::json record = nlohmann::json::parse(line);
    if (record.at("time") != 0.0625) continue;
    const bool worker_0 = record.at("type") == "stall_warning" &&
                          record.at("message").get<std::string>().starts_with("slow: worker 0 ");
    if (record.at("type") == "eval" || worker_0) at_the_instant.push_back(record.at("type"));
  }
  EXPECT_EQ(at_the_instant, (std::vector<std::string>{"stall_warning", "eval"}));
}

// An apply holds the servers from its update's arrival, however long they were idle before
// (not from when they were last free): with one worker each reply waits for the apply of the
// update before it, so every round but the last grows by the apply's time.
TEST(SimEngineTest, AnApplyHoldsTheServersFromItsUpdatesArrival) {
  auto config = small_config("asp");
  config.cluster.workers = 1;
  config.cluster.speeds = {1.0};
  config.train.max_samples = 16 * 20;
  constexpr double kModelBits = (784 * 10 + 10) * sizeof(float) * 8;
  const Outcome quick = run_small(config);          // 80 Gbps
  config.cluster.apply_gbps = kModelBits / 0.01e9;  // 10 ms per update, a quarter of a step
  const Outcome slow = run_small(config);
  ASSERT_EQ(quick.summary.updates, 20);
  ASSERT_EQ(slow.summary.updates, 20);
  EXPECT_NEAR(slow.summary.total_time - quick.summary.total_time, 19 * (0.01 - kModelBits / 80e9),
              1e-9);
}

// The checkpoint of an interval boundary holds the run as it stood at that instant, before any
// event due there: here each boundary is an evaluation's instant (exact in binary), and each
// checkpoint comes after the previous evaluation and before the one at its boundary.
TEST(SimEngineTest, ACheckpointDueAtAnEventsInstantIsTakenBeforeIt) {
  constexpr double kInterval = 0.03125;
  auto config = small_config("asp");
  config.train.eval_interval = kInterval;
  config.run.checkpoint_interval = kInterval;
  std::vector<double> taken;
  RunCheckpoints checkpoints;
  checkpoints.save = [&](const nlohmann::json&, double time) { taken.push_back(time); };
  CollectingListener log;
  run(config, small_data(), testing::softmax_source(784, 10, config.seed), log, checkpoints);
  ASSERT_GE(taken.size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_GE(taken[k], kInterval * static_cast<double>(k)) << k;
    EXPECT_LT(taken[k], kInterval * static_cast<double>(k + 1)) << k;
  }
}

}  // namespace
}  // namespace hetps::engine
