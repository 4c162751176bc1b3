// Checkpoints and resume on the threads engine (issue 9): a run stopped through the stop flag
// after some checkpoints and resumed from the last one loses no update and applies none twice.
// Real time does not repeat, so these check invariants, never bits: at every checkpoint each
// sample a worker drew is in an update the server applied or holds, exactly once; the resumed
// run spends exactly the budget, its log goes on from the checkpoint's time and version, its
// workers' data positions go on, and its model learns as the uninterrupted run's does.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <optional>
#include <vector>

#include "checkpoint/checkpoint_error.h"
#include "engine/engine.h"
#include "engine/worker_factory.h"
#include "leader_rounds.h"
#include "small_run.h"
#include "support/through_cbor.h"

namespace hetps::testing {
namespace {

constexpr size_t kNoStop = std::numeric_limits<size_t>::max();

// Sets the stop flag at an evaluation, as a signal comes at any moment: the checkpoint it
// asks for is one of its own, not one the interval made due.
struct StoppingListener : CollectingListener {
  StoppingListener(std::atomic<bool>& stop, size_t stop_at_evaluation)
      : stop_(stop), stop_at_evaluation_(stop_at_evaluation) {}
  void on_eval(const metrics::EvalRecord& record) override {
    CollectingListener::on_eval(record);
    if (evals.size() >= stop_at_evaluation_) stop_ = true;
  }
  std::atomic<bool>& stop_;
  size_t stop_at_evaluation_;
};

// A checkpoint as the command line keeps it: the state through CBOR, and how much of the run
// log had been written.
struct Checkpoint {
  nlohmann::json state;
  double time = 0;
  size_t evals = 0;
  size_t events = 0;
};

struct CheckpointedRun {
  std::vector<Checkpoint> checkpoints;
  CollectingListener log;
  std::optional<metrics::Summary> summary;  // empty when the stop flag ended the run
  std::optional<double> stopped_at;         // Interrupted's time
};

config::Config checkpointed_config(const std::string& protocol) {
  config::Config config = small_config(protocol);
  config.engine = "threads";
  // Five times slower than the small job's workers (padded: a sleep), so that a run lasts a
  // few tenths of a second, long enough for several checkpoints, without more work for the cores.
  config.cluster.speeds = {0.2, 0.2, 0.1, 0.05};
  config.train.max_samples = 4 * 16 * 250;
  config.train.eval_interval = 0.05;
  config.run.checkpoint_interval = 0.03;
  return config;
}

// Runs `config` with checkpoints; the stop flag is set at evaluation `stop_at_evaluation` (the
// first is 1). With `resume_from` the run goes on from that checkpoint of `before`, its log
// starting as `before`'s stood then (as `hetps train --resume` truncates it).
CheckpointedRun run_checkpointed(const config::Config& config, size_t stop_at_evaluation,
                                 const Checkpoint* resume_from = nullptr,
                                 const CheckpointedRun* before = nullptr) {
  std::atomic<bool> stop{false};
  StoppingListener log(stop, stop_at_evaluation);
  CheckpointedRun run;
  if (resume_from != nullptr) {
    const auto& evals = before->log.evals;
    const auto& events = before->log.events;
    log.evals.assign(evals.begin(), evals.begin() + static_cast<ptrdiff_t>(resume_from->evals));
    log.events.assign(events.begin(), events.begin() + static_cast<ptrdiff_t>(resume_from->events));
  }
  engine::RunCheckpoints checkpoints;
  checkpoints.stop = &stop;
  checkpoints.resume_from = resume_from != nullptr ? &resume_from->state : nullptr;
  checkpoints.save = [&](const nlohmann::json& state, double time) {
    run.checkpoints.push_back({through_cbor(state), time, log.evals.size(), log.events.size()});
  };
  try {
    run.summary =
        engine::run(config, small_data(), softmax_source(784, 10, config.seed), log, checkpoints);
  } catch (const engine::Interrupted& interrupted) {
    run.stopped_at = interrupted.time();
  }
  run.log = std::move(log);
  return run;
}

// Samples each worker has drawn from its data by the checkpoint (its sampler's epochs and
// position in the current one).
std::vector<int64_t> samples_drawn(const config::Config& config, const Checkpoint& checkpoint) {
  const auto partition = engine::make_partition(config, small_data().train);
  std::vector<int64_t> drawn;
  for (size_t w = 0; w < partition->size(); ++w) {
    const nlohmann::json& sampler = checkpoint.state.at("workers").at(w).at("sampler");
    drawn.push_back(sampler.at("epoch").get<int64_t>() *
                        static_cast<int64_t>(partition->at(w).size()) +
                    sampler.at("position").get<int64_t>());
  }
  return drawn;
}

// Every worker rests at a checkpoint, so each sample drawn is in an update the server applied
// or holds in flight: one lost would leave samples unaccounted for, one applied twice would
// count them twice.
void expect_every_drawn_sample_accounted_for(const config::Config& config,
                                             const Checkpoint& checkpoint) {
  const nlohmann::json& server = checkpoint.state.at("loop").at("server");
  int64_t in_flight = 0;
  for (const nlohmann::json& pending : server.at("pool").at("pending")) {
    in_flight += pending.at("info").at("samples").get<int64_t>();
  }
  int64_t drawn = 0;
  for (int64_t worker_drawn : samples_drawn(config, checkpoint)) drawn += worker_drawn;
  EXPECT_EQ(drawn, server.at("statistics").at("samples").get<int64_t>() + in_flight)
      << "at the checkpoint of " << checkpoint.time << " s";
}

int64_t version_at(const Checkpoint& checkpoint) {
  return checkpoint.state.at("loop").at("server").at("server").at("version").get<int64_t>();
}

// The run stopped at its third evaluation (0.1 s), after checkpoints by the interval, and resumed
// from the stop's, against the same run never stopped. `samples_per_version`: what every applied
// version holds, where the protocol fixes it.
void expect_stopped_run_resumes_exactly(const config::Config& config,
                                        std::optional<int64_t> samples_per_version) {
  const CheckpointedRun reference = run_checkpointed(config, kNoStop);
  ASSERT_TRUE(reference.summary);
  const CheckpointedRun stopped = run_checkpointed(config, 3);
  ASSERT_TRUE(stopped.stopped_at) << "the stop flag must stop the run";
  ASSERT_GE(stopped.checkpoints.size(), 2u) << "the interval's before the stop's";
  const Checkpoint& resume_point = stopped.checkpoints.back();
  EXPECT_EQ(resume_point.time, *stopped.stopped_at);
  const CheckpointedRun resumed = run_checkpointed(config, kNoStop, &resume_point, &stopped);
  ASSERT_TRUE(resumed.summary);
  ASSERT_FALSE(resumed.checkpoints.empty()) << "a resumed run goes on taking checkpoints";

  for (const CheckpointedRun* run : {&reference, &stopped, &resumed}) {
    for (const Checkpoint& checkpoint : run->checkpoints) {
      expect_every_drawn_sample_accounted_for(config, checkpoint);
    }
  }
  // Every worker's data goes on where it stood: no batch is drawn twice.
  const std::vector<int64_t> before = samples_drawn(config, resume_point);
  const std::vector<int64_t> after = samples_drawn(config, resumed.checkpoints.front());
  for (size_t w = 0; w < before.size(); ++w) EXPECT_GE(after[w], before[w]) << "worker " << w;
  EXPECT_GE(resumed.checkpoints.front().time, resume_point.time);
  EXPECT_GE(version_at(resumed.checkpoints.front()), version_at(resume_point));

  // The budget is spent as by the run that never stopped: exactly where every version holds the
  // same samples, else by the version that reached it, which holds at most one of every worker's
  // batches.
  for (const CheckpointedRun* run : {&reference, &resumed}) {
    if (samples_per_version) {
      EXPECT_EQ(run->summary->samples, config.train.max_samples);
    } else {
      EXPECT_GE(run->summary->samples, config.train.max_samples);
      EXPECT_LT(run->summary->samples,
                config.train.max_samples + config.cluster.workers * config.data.batch_size);
    }
  }
  EXPECT_EQ(resumed.summary->stop_reason, "max_samples");
  EXPECT_GE(resumed.summary->total_time, resume_point.time);

  // The log goes on from the checkpoint: times increase, versions never go back, and every
  // version holds its samples.
  const std::vector<metrics::EvalRecord>& evals = resumed.log.evals;
  ASSERT_GT(evals.size(), resume_point.evals);
  EXPECT_GE(evals[resume_point.evals].time, resume_point.time);
  EXPECT_GE(evals[resume_point.evals].updates, version_at(resume_point));
  for (size_t i = 0; i < evals.size(); ++i) {
    if (samples_per_version) {
      EXPECT_EQ(evals[i].samples, evals[i].updates * *samples_per_version) << "evaluation " << i;
    }
    if (i == 0) continue;
    EXPECT_LT(evals[i - 1].time, evals[i].time) << "evaluation " << i;
    EXPECT_LE(evals[i - 1].updates, evals[i].updates) << "evaluation " << i;
    EXPECT_LE(evals[i - 1].samples, evals[i].samples) << "evaluation " << i;
  }
  // A continuation of the same training: it learns as the run that never stopped.
  EXPECT_GT(resumed.summary->final_accuracy, evals.front().test_accuracy + 0.3);
  EXPECT_NEAR(resumed.summary->final_accuracy, reference.summary->final_accuracy, 0.1);
}

TEST(ThreadsCheckpointTest, AStoppedAspRunResumesWithNoUpdateLostOrAppliedTwice) {
  expect_stopped_run_resumes_exactly(checkpointed_config("asp"), 16);
}

TEST(ThreadsCheckpointTest, AStoppedBspRunResumesWithNoUpdateLostOrAppliedTwice) {
  expect_stopped_run_resumes_exactly(checkpointed_config("bsp"), 4 * 16);
}

// Leaders gather their members' updates: a checkpoint waits for every merge, and the resumed
// leaders gather again from the replies held back.
TEST(ThreadsCheckpointTest, AStoppedRunOfLeadersResumesWithNoUpdateLostOrAppliedTwice) {
  const auto leader_rounds = LeaderRounds::registration();
  config::Config config = checkpointed_config("leader_rounds");
  config.protocol.params["split"] = 2.0;
  config.protocol.params["rotate"] = 1.0;
  // Two communities of two, each merged update a version of its own.
  expect_stopped_run_resumes_exactly(config, 2 * 16);
}

// A crash before the stop is in the checkpoint and is not injected again; one due after the
// resume still comes.
// Petrel itself: communities of its own choosing, regrouped by quiesce, so a version holds as
// many samples as the community that made it.
TEST(ThreadsCheckpointTest, AStoppedPetrelRunResumesWithNoUpdateLostOrAppliedTwice) {
  config::Config config = checkpointed_config("petrel");
  config.protocol.params["profile_steps"] = 2.0;
  expect_stopped_run_resumes_exactly(config, std::nullopt);
}

TEST(ThreadsCheckpointTest, FailuresComeOnceAcrossAResume) {
  config::Config config = checkpointed_config("bsp");
  config.train.max_samples = 1'000'000'000;
  config.train.max_time = 0.8;
  config.cluster.failures = {{.worker = 1, .time = 0.0, .kind = "crash"},
                             {.worker = 2, .time = 0.5, .kind = "crash"}};
  const CheckpointedRun stopped = run_checkpointed(config, 2);
  ASSERT_TRUE(stopped.stopped_at);
  ASSERT_LT(*stopped.stopped_at, 0.5) << "the stop comes well before the second crash";
  const CheckpointedRun resumed =
      run_checkpointed(config, kNoStop, &stopped.checkpoints.back(), &stopped);
  ASSERT_TRUE(resumed.summary);
  EXPECT_EQ(resumed.summary->stop_reason, "max_time");
  std::vector<int> failed;
  for (const nlohmann::json& event : resumed.log.events) {
    if (event.at("type") == "worker_failed") failed.push_back(event.at("worker").get<int>());
  }
  EXPECT_EQ(failed, (std::vector<int>{1, 2}));
  // The two workers left go on closing rounds after the second crash.
  ASSERT_FALSE(resumed.log.evals.empty());
  EXPECT_GT(resumed.log.evals.back().time, 0.5);
  const auto after_crash = std::find_if(resumed.log.evals.begin(), resumed.log.evals.end(),
                                        [](const auto& eval) { return eval.time > 0.5; });
  EXPECT_GT(resumed.log.evals.back().updates, after_crash->updates);
}

// A hung worker is not waited for: checkpoints go on without it, and it stays silent after the
// resume, its hang logged once.
TEST(ThreadsCheckpointTest, AHungWorkerDoesNotHoldBackACheckpoint) {
  config::Config config = checkpointed_config("asp");
  config.cluster.failures = {{.worker = 3, .time = 0.0, .kind = "hang"}};
  config.run.stall_warning_s = 100;
  config.run.stall_timeout_s = 100;
  const CheckpointedRun stopped = run_checkpointed(config, 2);
  ASSERT_TRUE(stopped.stopped_at);
  const CheckpointedRun resumed =
      run_checkpointed(config, kNoStop, &stopped.checkpoints.back(), &stopped);
  ASSERT_TRUE(resumed.summary);
  EXPECT_EQ(resumed.summary->samples, config.train.max_samples);
  EXPECT_EQ(
      std::count_if(resumed.log.events.begin(), resumed.log.events.end(),
                    [](const nlohmann::json& event) { return event.at("type") == "worker_hung"; }),
      1);
  for (const Checkpoint& checkpoint : resumed.checkpoints) {
    EXPECT_EQ(samples_drawn(config, checkpoint)[3], 0) << "the hung worker never trained";
    expect_every_drawn_sample_accounted_for(config, checkpoint);
  }
}

TEST(ThreadsCheckpointTest, ACheckpointOfAnotherEngineIsRefusedByName) {
  config::Config config = checkpointed_config("asp");
  config.engine = "sim";
  const CheckpointedRun simulated = run_checkpointed(config, 2);
  ASSERT_TRUE(simulated.stopped_at);
  config.engine = "threads";
  try {
    run_checkpointed(config, kNoStop, &simulated.checkpoints.back(), &simulated);
    FAIL() << "a checkpoint of the simulator must be refused";
  } catch (const checkpoint::CheckpointError& error) {
    EXPECT_STREQ(error.what(), "the threads engine: taken on engine \"sim\", not threads");
  }
}

}  // namespace
}  // namespace hetps::testing
