// Runs one training job on the engine its config names. The CLI's single entry point into
// training: the config is already resolved and validated, the data loaded.
#pragma once

#include <functional>

#include "config/config.h"
#include "data/dataset.h"
#include "metrics/records.h"
#include "model/learner.h"

namespace hetps::engine {

// Receives the run log as it is produced, in order. `on_eval` also drives progress displays.
class RunListener {
 public:
  virtual ~RunListener() = default;
  virtual void on_eval(const metrics::EvalRecord& record) = 0;
  // `record` is a complete log record: {"type": ..., "time": ..., ...}.
  virtual void on_event(const nlohmann::json& record) = 0;
};

// Trains to the budget (`train.max_samples`, `train.max_time`, or the target when
// `train.stop_at_target`), evaluating every `train.eval_interval`. Throws std::invalid_argument
// for a configuration the engine cannot run (naming the key).
metrics::Summary run(const config::Config& config, const data::DataSplit& data,
                     model::Learner& learner, RunListener& listener);

}  // namespace hetps::engine
