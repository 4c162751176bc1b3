// Helpers for the engine tests: a small training job (synthetic data, the softmax learner,
// four workers of unequal speed) and a listener that keeps its run log.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "data/synthetic.h"
#include "engine/engine.h"
#include "support/softmax_learner.h"

namespace hetps::testing {

struct CollectingListener : engine::RunListener {
  void on_eval(const metrics::EvalRecord& record) override {
    lines.push_back(metrics::to_json(record).dump());
    evals.push_back(record);
  }
  void on_event(const nlohmann::json& record) override {
    lines.push_back(record.dump());
    events.push_back(record);
  }
  void on_timeline(const metrics::ActivityTimeline& recorded) override {
    timeline.clear();
    for (const metrics::WorkerActivity& worker : recorded.workers()) {
      timeline.push_back(worker.intervals());
    }
  }
  std::vector<std::string> lines;                                // the whole log, in order
  std::vector<std::vector<metrics::ActivityInterval>> timeline;  // by worker
  std::vector<metrics::EvalRecord> evals;
  std::vector<nlohmann::json> events;
};

struct Outcome {
  metrics::Summary summary;  // empty when the run stalled
  CollectingListener log;
  std::optional<std::string> stall;  // the StallError's message
};

// The run log's records of one type ("phase", "regroup", "worker_failed", ...), in order.
inline std::vector<nlohmann::json> events_of_type(const Outcome& outcome, const std::string& type) {
  std::vector<nlohmann::json> found;
  for (const auto& event : outcome.log.events) {
    if (event.at("type") == type) found.push_back(event);
  }
  return found;
}

// How long `intervals` spent on `activity`.
inline double seconds_of(const std::vector<metrics::ActivityInterval>& intervals,
                         metrics::Activity activity) {
  double seconds = 0;
  for (const metrics::ActivityInterval& interval : intervals) {
    if (interval.activity == activity) seconds += interval.end - interval.start;
  }
  return seconds;
}

inline const data::DataSplit& small_data() {
  static const data::DataSplit split = data::make_synthetic(2000, 400, 5);
  return split;
}

inline config::Config small_config(const std::string& protocol) {
  config::Config config;
  config.protocol.name = protocol;
  config.data.name = "synthetic";
  config.data.batch_size = 16;
  config.cluster.workers = 4;
  config.cluster.speeds = {1.0, 1.0, 0.5, 0.25};
  config.train.max_samples = 4 * 16 * 40;
  config.train.lr = 0.1;
  config.train.momentum = 0.0;
  config.train.eval_interval = 0.05;
  // The softmax model is tiny: scale the compute rate so a step is ~10× a push+pull.
  config.cluster.worker_gflops = 0.02;
  return config;
}

// Runs `config`; a stall ends the run with its message in `stall` and the log kept.
// Called before every run_small on a real engine, when set. The MPI tests' main sets a barrier:
// a run's waits before training give up after run.stall_timeout_s, which some tests make
// tiny, and without it the ranks reach a run's start as the previous run let each go (rank 0
// last, after its final evaluation).
inline std::function<void()>& before_each_real_run() {
  static std::function<void()> hook;
  return hook;
}

inline Outcome run_small(const config::Config& config) {
  if (const auto& hook = before_each_real_run(); hook && config.engine != "sim") hook();
  Outcome outcome;
  try {
    outcome.summary =
        engine::run(config, small_data(), softmax_source(784, 10, config.seed), outcome.log);
  } catch (const engine::StallError& error) {
    outcome.stall = error.what();
  }
  return outcome;
}

}  // namespace hetps::testing
