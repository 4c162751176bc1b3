#include "metrics/records.h"

namespace hetps::metrics {

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

nlohmann::json to_json(const Summary& s) {
  nlohmann::json time_to_target = nullptr;
  if (s.time_to_target) time_to_target = *s.time_to_target;
  return {{"protocol", s.protocol},
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
          {"wall_seconds", s.wall_seconds},
          {"stop_reason", s.stop_reason}};
}

}  // namespace hetps::metrics
