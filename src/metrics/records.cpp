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

Summary summary_from_json(const nlohmann::json& j) {
  Summary s;
  s.protocol = j.at("protocol").get<std::string>();
  s.run_name = j.at("run_name").get<std::string>();
  s.engine = j.at("engine").get<std::string>();
  s.workers = j.at("workers").get<int>();
  s.seed = j.at("seed").get<uint64_t>();
  s.final_accuracy = j.at("final_accuracy").get<double>();
  s.best_accuracy = j.at("best_accuracy").get<double>();
  s.target_accuracy = j.at("target_accuracy").get<double>();
  if (!j.at("time_to_target").is_null()) s.time_to_target = j.at("time_to_target").get<double>();
  s.total_time = j.at("total_time").get<double>();
  s.samples = j.at("samples").get<int64_t>();
  s.updates = j.at("updates").get<int64_t>();
  s.bytes_to_server = j.at("bytes_to_server").get<int64_t>();
  s.bytes_from_server = j.at("bytes_from_server").get<int64_t>();
  s.bytes_worker_to_worker = j.value("bytes_worker_to_worker", int64_t{0});
  s.mean_staleness = j.at("mean_staleness").get<double>();
  s.max_staleness = j.at("max_staleness").get<int64_t>();
  s.wall_seconds = j.at("wall_seconds").get<double>();
  s.stop_reason = j.value("stop_reason", std::string());
  return s;
}

}  // namespace hetps::metrics
