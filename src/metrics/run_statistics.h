// The running totals every engine keeps for the run log and the summary: samples, traffic,
// staleness and training loss, accumulated as updates are applied.
#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "metrics/records.h"

namespace hetps::metrics {

class RunStatistics {
 public:
  // One update applied: `staleness` versions behind, holding `samples` samples whose mean
  // training loss was `loss`, made by `contributors` workers (a community leader's merge of its
  // own and its members' updates): the staleness counts once per contributor, as a BSP round of
  // n workers counts n times.
  void on_applied(int64_t staleness, int64_t samples, double loss, int64_t contributors = 1);
  void add_bytes_to_server(int64_t bytes) { bytes_to_server_ += bytes; }
  void add_bytes_from_server(int64_t bytes) { bytes_from_server_ += bytes; }
  void add_bytes_worker_to_worker(int64_t bytes) { bytes_worker_to_worker_ += bytes; }

  int64_t samples() const { return samples_; }
  void set_target(double target_accuracy) { target_accuracy_ = target_accuracy; }
  bool target_reached() const { return time_to_target_.has_value(); }

  // An evaluation record with the totals so far; the training loss is the mean over the
  // samples applied since the previous evaluation (the previous mean when none were).
  EvalRecord evaluation(double time, int64_t updates, double test_accuracy, double test_loss,
                        uint64_t model_hash);

  // Fills the summary's totals and accuracy figures from the evaluations seen.
  void fill(Summary& summary) const;

  // Every running total, for checkpoints; the target comes from the run's config and is not
  // saved. restore_state throws checkpoint::CheckpointError naming a field that is missing or
  // of the wrong type, and leaves the statistics unchanged.
  nlohmann::json save_state() const;
  void restore_state(const nlohmann::json& state);

 private:
  double mean_staleness() const;

  int64_t samples_ = 0;
  int64_t applied_ = 0;
  int64_t updates_ = 0;
  int64_t bytes_to_server_ = 0;
  int64_t bytes_from_server_ = 0;
  int64_t bytes_worker_to_worker_ = 0;
  double staleness_sum_ = 0;
  int64_t max_staleness_ = 0;
  StalenessHistogram staleness_histogram_;
  double window_loss_sum_ = 0;
  int64_t window_samples_ = 0;
  double last_train_loss_ = 0;
  double last_time_ = 0;
  double final_accuracy_ = 0;
  double best_accuracy_ = 0;
  double target_accuracy_ = 0;
  std::optional<double> time_to_target_;
};

}  // namespace hetps::metrics
