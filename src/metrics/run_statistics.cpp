#include "metrics/run_statistics.h"

#include <algorithm>

#include "checkpoint/restoring.h"
#include "checkpoint/saved_integers.h"

namespace hetps::metrics {

void RunStatistics::on_applied(int64_t staleness, int64_t samples, double loss,
                               int64_t contributors) {
  samples_ += samples;
  applied_ += contributors;
  staleness_sum_ += static_cast<double>(staleness * contributors);
  max_staleness_ = std::max(max_staleness_, staleness);
  staleness_histogram_.add(staleness, contributors);
  window_loss_sum_ += loss * static_cast<double>(samples);
  window_samples_ += samples;
}

EvalRecord RunStatistics::evaluation(double time, int64_t updates, double test_accuracy,
                                     double test_loss, uint64_t model_hash) {
  if (window_samples_ > 0)
    last_train_loss_ = window_loss_sum_ / static_cast<double>(window_samples_);
  window_loss_sum_ = 0;
  window_samples_ = 0;
  updates_ = updates;
  last_time_ = time;
  final_accuracy_ = test_accuracy;
  best_accuracy_ = std::max(best_accuracy_, test_accuracy);
  if (!time_to_target_ && target_accuracy_ > 0 && test_accuracy >= target_accuracy_) {
    time_to_target_ = time;
  }
  EvalRecord record;
  record.time = time;
  record.samples = samples_;
  record.updates = updates;
  record.test_accuracy = test_accuracy;
  record.test_loss = test_loss;
  record.train_loss = last_train_loss_;
  record.bytes_to_server = bytes_to_server_;
  record.bytes_from_server = bytes_from_server_;
  record.bytes_worker_to_worker = bytes_worker_to_worker_;
  record.mean_staleness = mean_staleness();
  record.model_hash = model_hash;
  return record;
}

double RunStatistics::mean_staleness() const {
  return applied_ > 0 ? staleness_sum_ / static_cast<double>(applied_) : 0;
}

void RunStatistics::fill(Summary& summary) const {
  summary.final_accuracy = final_accuracy_;
  summary.best_accuracy = best_accuracy_;
  summary.target_accuracy = target_accuracy_;
  summary.time_to_target = time_to_target_;
  summary.total_time = last_time_;
  summary.samples = samples_;
  summary.updates = updates_;
  summary.bytes_to_server = bytes_to_server_;
  summary.bytes_from_server = bytes_from_server_;
  summary.bytes_worker_to_worker = bytes_worker_to_worker_;
  summary.mean_staleness = mean_staleness();
  summary.max_staleness = max_staleness_;
  summary.staleness_histogram = staleness_histogram_;
}

nlohmann::json RunStatistics::save_state() const {
  return {{"samples", samples_},
          {"applied", applied_},
          {"updates", updates_},
          {"bytes_to_server", bytes_to_server_},
          {"bytes_from_server", bytes_from_server_},
          {"bytes_worker_to_worker", bytes_worker_to_worker_},
          {"staleness_sum", staleness_sum_},
          {"max_staleness", max_staleness_},
          {"staleness_histogram", staleness_histogram_.save_state()},
          {"window_loss_sum", window_loss_sum_},
          {"window_samples", window_samples_},
          {"last_train_loss", last_train_loss_},
          {"last_time", last_time_},
          {"final_accuracy", final_accuracy_},
          {"best_accuracy", best_accuracy_},
          {"time_to_target",
           time_to_target_ ? nlohmann::json(*time_to_target_) : nlohmann::json(nullptr)}};
}

void RunStatistics::restore_state(const nlohmann::json& state) {
  checkpoint::restoring("the run statistics", [&] {
    RunStatistics restored;
    restored.samples_ = checkpoint::integer<int64_t>(state.at("samples"));
    restored.applied_ = checkpoint::integer<int64_t>(state.at("applied"));
    restored.updates_ = checkpoint::integer<int64_t>(state.at("updates"));
    restored.bytes_to_server_ = checkpoint::integer<int64_t>(state.at("bytes_to_server"));
    restored.bytes_from_server_ = checkpoint::integer<int64_t>(state.at("bytes_from_server"));
    restored.bytes_worker_to_worker_ =
        checkpoint::integer<int64_t>(state.at("bytes_worker_to_worker"));
    restored.staleness_sum_ = state.at("staleness_sum").get<double>();
    restored.max_staleness_ = checkpoint::integer<int64_t>(state.at("max_staleness"));
    restored.staleness_histogram_.restore_state(state.at("staleness_histogram"));
    restored.window_loss_sum_ = state.at("window_loss_sum").get<double>();
    restored.window_samples_ = checkpoint::integer<int64_t>(state.at("window_samples"));
    restored.last_train_loss_ = state.at("last_train_loss").get<double>();
    restored.last_time_ = state.at("last_time").get<double>();
    restored.final_accuracy_ = state.at("final_accuracy").get<double>();
    restored.best_accuracy_ = state.at("best_accuracy").get<double>();
    const nlohmann::json& time_to_target = state.at("time_to_target");
    if (!time_to_target.is_null()) restored.time_to_target_ = time_to_target.get<double>();
    restored.target_accuracy_ = target_accuracy_;
    *this = restored;
  });
}

}  // namespace hetps::metrics
