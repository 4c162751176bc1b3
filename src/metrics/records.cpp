#include "metrics/records.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

#include "checkpoint/restoring.h"
#include "checkpoint/saved_integers.h"

namespace hetps::metrics {

void StalenessHistogram::add(int64_t staleness, int64_t updates) {
  if (staleness < 0 || updates < 0) {
    throw std::invalid_argument(
        fmt::format("StalenessHistogram::add: staleness and updates must be >= 0, got {} and {}",
                    staleness, updates));
  }
  updates_[static_cast<size_t>(std::min(staleness, kOverflowStaleness))] += updates;
}

std::vector<StalenessHistogram::Bucket> StalenessHistogram::buckets() const {
  std::vector<Bucket> buckets;
  for (int64_t s = 0; s <= kOverflowStaleness; ++s) {
    const int64_t updates = updates_[static_cast<size_t>(s)];
    if (updates > 0) buckets.push_back({s, s == kOverflowStaleness, updates});
  }
  return buckets;
}

int64_t StalenessHistogram::total_updates() const {
  return std::accumulate(updates_.begin(), updates_.end(), int64_t{0});
}

nlohmann::json StalenessHistogram::save_state() const { return to_json(*this); }

void StalenessHistogram::restore_state(const nlohmann::json& state) {
  checkpoint::restoring("the staleness histogram", [&] {
    std::array<int64_t, kOverflowStaleness + 1> updates{};
    for (const nlohmann::json& bucket : state) {
      const auto staleness = checkpoint::integer<int64_t>(bucket.at("staleness"));
      const auto count = checkpoint::integer<int64_t>(bucket.at("updates"));
      if (staleness < 0 || staleness > kOverflowStaleness || count < 0) {
        throw checkpoint::CheckpointError(fmt::format(
            "a bucket of staleness {} holding {} updates: expected a staleness from 0 to {} and "
            "a count of at least 0",
            staleness, count, kOverflowStaleness));
      }
      int64_t& slot = updates[static_cast<size_t>(staleness)];
      if (slot != 0) {
        throw checkpoint::CheckpointError(
            fmt::format("the bucket of staleness {} is given twice", staleness));
      }
      slot = count;
    }
    updates_ = updates;
  });
}

nlohmann::json to_json(const EvalRecord& r) {
  return {{"type", "eval"},
          {"time", r.time},
          {"samples", r.samples},
          {"updates", r.updates},
          {"test_accuracy", r.test_accuracy},
          {"test_loss", r.test_loss},
          {"train_loss", r.train_loss},
          {"bytes_to_server", r.bytes_to_server},
          {"bytes_from_server", r.bytes_from_server},
          {"bytes_worker_to_worker", r.bytes_worker_to_worker},
          {"mean_staleness", r.mean_staleness},
          {"model_hash", r.model_hash}};
}

nlohmann::json to_json(const StalenessHistogram& histogram) {
  nlohmann::json buckets = nlohmann::json::array();
  for (const StalenessHistogram::Bucket& bucket : histogram.buckets()) {
    nlohmann::json entry = {{"staleness", bucket.staleness}, {"updates", bucket.updates}};
    if (bucket.or_more) entry["or_more"] = true;
    buckets.push_back(std::move(entry));
  }
  return buckets;
}

nlohmann::json to_json(const Summary& s) {
  nlohmann::json time_to_target = nullptr;
  if (s.time_to_target) time_to_target = *s.time_to_target;
  nlohmann::json summary = {{"protocol", s.protocol},
                            {"run_name", s.run_name},
                            {"engine", s.engine},
                            {"workers", s.workers},
                            {"seed", s.seed},
                            {"final_accuracy", s.final_accuracy},
                            {"best_accuracy", s.best_accuracy},
                            {"target_accuracy", s.target_accuracy},
                            {"time_to_target", time_to_target},
                            {"total_time", s.total_time},
                            {"samples", s.samples},
                            {"updates", s.updates},
                            {"bytes_to_server", s.bytes_to_server},
                            {"bytes_from_server", s.bytes_from_server},
                            {"bytes_worker_to_worker", s.bytes_worker_to_worker},
                            {"mean_staleness", s.mean_staleness},
                            {"max_staleness", s.max_staleness},
                            {"staleness_histogram", to_json(s.staleness_histogram)},
                            {"wall_seconds", s.wall_seconds},
                            {"stop_reason", s.stop_reason}};
  if (s.timeline_cycle_stride > 0) summary["timeline_cycle_stride"] = s.timeline_cycle_stride;
  if (s.timeline_cycle_stride > 1) summary["timeline_whole_cycles"] = s.timeline_whole_cycles;
  if (!s.blas_kernel.empty()) summary["blas_kernel"] = s.blas_kernel;
  return summary;
}

}  // namespace hetps::metrics
