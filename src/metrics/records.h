// What a run reports: one record per evaluation and per protocol event in `log.jsonl`, and a
// summary. Wall-clock figures appear in the summary only, so the log is reproducible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace hetps::metrics {

struct EvalRecord {
  double time = 0;  // engine time (virtual on sim)
  int64_t samples = 0;
  int64_t updates = 0;  // server version
  double test_accuracy = 0;
  double test_loss = 0;
  double train_loss = 0;  // mean over the steps since the previous evaluation
  int64_t bytes_to_server = 0;
  int64_t bytes_from_server = 0;
  int64_t bytes_worker_to_worker = 0;
  double mean_staleness = 0;  // over all updates applied so far
  uint64_t model_hash = 0;
};

struct Summary {
  std::string protocol;
  std::string run_name;
  std::string engine;
  int workers = 0;
  uint64_t seed = 0;
  double final_accuracy = 0;
  double best_accuracy = 0;
  double target_accuracy = 0;
  std::optional<double> time_to_target;
  double total_time = 0;
  int64_t samples = 0;
  int64_t updates = 0;
  int64_t bytes_to_server = 0;
  int64_t bytes_from_server = 0;
  int64_t bytes_worker_to_worker = 0;
  double mean_staleness = 0;
  int64_t max_staleness = 0;
  double wall_seconds = 0;
  std::string stop_reason;  // "max_samples", "max_time", "target", "stalled" (nothing in flight)
};

nlohmann::json to_json(const EvalRecord& record);
nlohmann::json to_json(const Summary& summary);

}  // namespace hetps::metrics
