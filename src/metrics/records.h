// What a run reports: one record per evaluation and per protocol event in `log.jsonl`, and a
// summary. Wall-clock figures appear in the summary only, so the log is reproducible.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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

// Applied updates counted by their staleness, in bounded memory: exact counts below
// kOverflowStaleness, one shared bucket at or above it. 256 covers ASP's staleness (about the
// number of workers) up to the simulator's 256 workers, in 2 KB.
class StalenessHistogram {
 public:
  static constexpr int64_t kOverflowStaleness = 256;

  struct Bucket {
    int64_t staleness = 0;  // kOverflowStaleness for the shared bucket
    bool or_more = false;   // the shared bucket: staleness kOverflowStaleness or more
    int64_t updates = 0;
  };

  // Throws std::invalid_argument for a negative staleness or count.
  void add(int64_t staleness, int64_t updates = 1);
  // The buckets holding updates, by increasing staleness.
  std::vector<Bucket> buckets() const;
  int64_t total_updates() const;

  // For checkpoints: the buckets as to_json writes them. restore_state throws
  // checkpoint::CheckpointError for a bucket outside 0 ... kOverflowStaleness, a bucket given
  // twice or a negative count, and leaves the histogram unchanged.
  nlohmann::json save_state() const;
  void restore_state(const nlohmann::json& state);

 private:
  std::array<int64_t, kOverflowStaleness + 1> updates_{};
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
  StalenessHistogram staleness_histogram;
  double wall_seconds = 0;
  // Every how many cycles each worker's activity timeline keeps after its first
  // `timeline_whole_cycles` (activity_timeline.h); 0 when the run recorded none.
  int64_t timeline_cycle_stride = 0;
  int64_t timeline_whole_cycles = 0;
  // "max_samples", "max_time", "target", "every_worker_failed", "stalled" (nothing in flight)
  std::string stop_reason;
  // The BLAS kernels of the process that ended the run (model/blas_kernel.h), empty when not
  // known: the simulator repeats a run bit for bit only with the same kernels.
  std::string blas_kernel;
};

nlohmann::json to_json(const EvalRecord& record);
// The histogram as [{"staleness": 0, "updates": 812}, ..., {"staleness": 256, "or_more": true,
// "updates": 3}], its non-empty buckets only.
nlohmann::json to_json(const StalenessHistogram& histogram);
nlohmann::json to_json(const Summary& summary);

}  // namespace hetps::metrics
