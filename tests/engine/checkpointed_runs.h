// Runs with checkpoints, stopped by the stop flag and resumed, on a real engine (threads, mpi),
// and what every such resume must keep (issue 9). Real time does not repeat, so these check
// invariants, never bits: at every checkpoint each sample a worker drew is in an update the
// server applied or holds, exactly once; the resumed run spends exactly the budget, its log goes
// on from the checkpoint's time and version, its workers' data positions go on, and its model
// learns as the uninterrupted run's does.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <limits>
#include <optional>
#include <vector>

#include "engine/engine.h"
#include "engine/worker_factory.h"
#include "small_run.h"
#include "support/through_cbor.h"

namespace hetps::testing {

inline constexpr size_t kNoStop = std::numeric_limits<size_t>::max();

// Sets the stop flag at an evaluation, as a signal comes at any moment: the checkpoint it
// asks for is one of its own, not one the interval made due. Not before the interval has taken
// one: on a loaded machine (sanitizers, CI) the first evaluations can all come before the
// server first looks at the interval, and the stop's would then be the run's only checkpoint.
struct StoppingListener : CollectingListener {
  StoppingListener(std::atomic<bool>& stop, size_t stop_at_evaluation,
                   const std::atomic<size_t>& checkpoints_taken)
      : stop_(stop),
        stop_at_evaluation_(stop_at_evaluation),
        checkpoints_taken_(checkpoints_taken) {}
  void on_eval(const metrics::EvalRecord& record) override {
    CollectingListener::on_eval(record);
    if (evals.size() >= stop_at_evaluation_ && checkpoints_taken_.load() > 0) stop_ = true;
  }
  std::atomic<bool>& stop_;
  size_t stop_at_evaluation_;
  const std::atomic<size_t>& checkpoints_taken_;
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

// Runs `config` with checkpoints; the stop flag is set at evaluation `stop_at_evaluation` (the
// first is 1), or at the first after it that follows a checkpoint. With `resume_from` the run goes
// on from that checkpoint of `before`, its log starting as `before`'s stood then (as `hetps train
// --resume` truncates it).
inline CheckpointedRun run_checkpointed(const config::Config& config, size_t stop_at_evaluation,
                                        const Checkpoint* resume_from = nullptr,
                                        const CheckpointedRun* before = nullptr) {
  std::atomic<bool> stop{false};
  std::atomic<size_t> checkpoints_taken{0};
  StoppingListener log(stop, stop_at_evaluation, checkpoints_taken);
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
    ++checkpoints_taken;
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
inline std::vector<int64_t> samples_drawn(const config::Config& config,
                                          const Checkpoint& checkpoint) {
  const auto partition = engine::make_partition(config, small_data().train);
  std::vector<int64_t> drawn;
  for (size_t w = 0; w < partition->size(); ++w) {
    const nlohmann::json& saved = checkpoint.state.at("workers").at(w);
    // An mpi worker rank's state holds its trainer's beside its own (mpi/rank_checkpoints.h).
    const nlohmann::json& trainer = saved.contains("worker") ? saved.at("worker") : saved;
    const nlohmann::json& sampler = trainer.at("sampler");
    drawn.push_back(sampler.at("epoch").get<int64_t>() *
                        static_cast<int64_t>(partition->at(w).size()) +
                    sampler.at("position").get<int64_t>());
  }
  return drawn;
}

// Every worker rests at a checkpoint, so each sample drawn is in an update the server applied
// or holds in flight: one lost would leave samples unaccounted for, one applied twice would
// count them twice.
inline void expect_every_drawn_sample_accounted_for(const config::Config& config,
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

inline int64_t version_at(const Checkpoint& checkpoint) {
  return checkpoint.state.at("loop").at("server").at("server").at("version").get<int64_t>();
}

// The run stopped at its third evaluation (0.1 s), after checkpoints by the interval, and resumed
// from the stop's, against the same run never stopped. `samples_per_version`: what every applied
// version holds, where the protocol fixes it.
// On mpi every rank calls it, and only the primary process (rank 0) has checkpoints, logs and
// summaries to check; the others (`primary` false) only take part in the same three runs.
inline void expect_stopped_run_resumes_exactly(const config::Config& config,
                                               std::optional<int64_t> samples_per_version,
                                               bool primary = true) {
  if (!primary) {
    run_checkpointed(config, kNoStop);
    run_checkpointed(config, 3);
    run_checkpointed(config, kNoStop);  // rank 0 tells the others that it resumes
    return;
  }
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

}  // namespace hetps::testing
