// Runs one training job on the engine its config names. The CLI's single entry point into
// training: the config is already resolved and validated, the data loaded.
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>

#include "config/config.h"
#include "data/dataset.h"
#include "engine/run_checkpoints.h"
#include "metrics/activity_timeline.h"
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
  // Where each worker's time went, once, at the end of a run that records it.
  virtual void on_timeline(const metrics::ActivityTimeline& /*timeline*/) {}
};

// Where an engine gets its models. Real engines give every worker thread its own Learner (a
// libtorch module is used from one thread at a time), and every engine sets libtorch's and the
// BLAS's thread pools, which only the libtorch side of hetps may touch: hence callbacks.
struct ModelSource {
  // A fresh Learner, the same model with the same initial parameters on every call.
  std::function<std::unique_ptr<model::Learner>()> make_learner;
  // Sets this process's intra-op and BLAS thread counts; may be empty (nothing is set).
  std::function<void(int threads)> set_compute_threads;
};

// A wait that went on past `run.stall_timeout_s`: the message names who was waited for, where
// and since when. A runtime failure (exit 1), not bad input.
class StallError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A worker heard nothing from the server for so long that the server is taken for hung (on mpi,
// a rank 0 that stopped: its own stall inspector would have ended a run held up by a worker
// long before). No report reaches such a server, so the worker's loop lets this through for
// the engine to end the run with it.
class ServerSilent : public StallError {
 public:
  using StallError::StallError;
};

// Trains to the budget (`train.max_samples`, `train.max_time`, or the target when
// `train.stop_at_target`), evaluating every `train.eval_interval`. Throws std::invalid_argument
// for a configuration the engine cannot run (naming the key), StallError for a stalled run.
// On the mpi engine every rank calls it; only the primary process (see `is_primary_process`)
// feeds `listener` and returns the run's summary, the others return an empty summary.
// `checkpoints`: every engine takes checkpoints and resumes; on mpi only the primary process's
// `checkpoints` count (its `save` receives every rank's state). Throws Interrupted when
// `checkpoints.stop` stopped the run, ShardCrashed when an injected server-shard crash ended it
// (threads, mpi: `sim` refuses `cluster.shard_failures`).
metrics::Summary run(const config::Config& config, const data::DataSplit& data,
                     const ModelSource& models, RunListener& listener,
                     const RunCheckpoints& checkpoints = {});

// Whether this process writes the run's outputs: always, except on the mpi engine, where only
// rank 0 does. Starts MPI for `engine = "mpi"` (once per process).
bool is_primary_process(const config::Config& config);

}  // namespace hetps::engine
