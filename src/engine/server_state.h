// The server side of a run as every engine keeps it: the protocol, the parameter server, the
// updates in flight, the running statistics and the evaluations. Engines differ only in how
// time passes and how messages travel; what happens when an update is applied, discarded or
// evaluated is written here once.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "config/config.h"
#include "data/dataset.h"
#include "engine/engine.h"
#include "engine/remote_shards.h"
#include "engine/stall_inspector.h"
#include "engine/update_pool.h"
#include "metrics/run_statistics.h"
#include "model/learner.h"
#include "protocol/protocol.h"
#include "server/parameter_server.h"

namespace hetps::engine {

// The protocol named by `config.protocol`; throws std::invalid_argument for an unknown name.
std::unique_ptr<protocol::Protocol> make_protocol(const config::ProtocolConfig& config);
server::ServerOptions server_options(const config::Config& config);

class ServerState {
 public:
  // `evaluator` computes the initial model and every evaluation; the caller keeps it alive and
  // uses it from the thread that calls `evaluate` only.
  // `remote`: the shards other processes hold, or null. With them the local server applies
  // shard 0 alone, and every change below is passed on to them.
  ServerState(const config::Config& config, const data::DataSplit& data, model::Learner& evaluator,
              RunListener& listener, RemoteShards* remote = nullptr);

  protocol::Protocol& protocol() { return *protocol_; }
  server::ParameterServer& server() { return *server_; }
  const server::ParameterServer& server() const { return *server_; }
  UpdatePool& pool() { return pool_; }
  metrics::RunStatistics& stats() { return stats_; }
  int64_t model_bytes() const {
    return static_cast<int64_t>(server_->model().size() * sizeof(float));
  }

  // Applies the order's updates as one version, counts them and frees their buffers.
  int64_t apply(const protocol::ApplyOrder& order);
  void discard(int update_id);
  void set_optimizer(const protocol::OptimizerOverride& settings);
  // Throws std::invalid_argument naming `protocol.name` and `engine` when `worker`'s plan
  // cannot be carried out: a keep_ratio outside (0, 1], a top-k compressed gradient, top-k
  // compression to or at a leader; data shares not one per worker, each in [0, 1], summing to
  // 1, or given in a leader's community; an update sent to itself or to no worker, a leader
  // that is itself a member, or one that gathers from itself, from no worker or from one twice.
  void check_plan(int worker, const protocol::WorkerPlan& plan) const;
  // `plan` with a delta plan's local steps cut to the worker's even part of what is left of
  // train.max_samples (rounded up, at least one step), so that one round of long local phases
  // cannot overshoot the budget by more than a batch per worker. The budget is checked between
  // updates only, and a phase runs to its end: uncut, local_steps = 10^6 would compute far past
  // the budget without a chance to stop. Gradient plans are one step already.
  protocol::WorkerPlan within_budget(protocol::WorkerPlan plan) const;
  // Writes a protocol event (or an engine event: a failure, a warning) into the run log.
  void record(const protocol::ProtocolEvent& event, double time);
  // Logs the stall inspector's warnings found at `time` and, at its timeout, a `stalled` record,
  // then throws StallError with the message.
  void report_stalls(const StallInspector::Findings& findings, double time);

  // Logs an `eval` record of the server's model at `time`, and a `diverged` record at the first
  // evaluation whose test loss is not finite (JSON has no NaN: the eval record's loss is null).
  void evaluate(double time);
  // The learning rate a worker's local optimizer uses now.
  double current_lr() const { return server_->current_lr(stats_.samples()); }
  bool budget_spent() const { return stats_.samples() >= config_.train.max_samples; }
  bool target_reached() const { return stats_.target_reached(); }

  // Evaluates the final model unless the last evaluation already described it, and returns
  // the summary; `wall_start` is when the engine began.
  metrics::Summary finish(double time, const std::string& stop_reason, const std::string& engine,
                          std::chrono::steady_clock::time_point wall_start);

  // The protocol's state, the server's (this process's shards), the updates in flight, the
  // statistics and which version was last evaluated, for checkpoints. Remote shards save and
  // restore their own servers.
  nlohmann::json save_state() const;
  // Into a server state built from the same config, in place of the protocol's `start` (which
  // this calls, its actions dropped: protocols size themselves there, and the restored state
  // then replaces what it set up). Throws checkpoint::CheckpointError naming the part that does
  // not fit; a protocol's refusal (std::invalid_argument) is one too. A refused state may be
  // restored in part: the run cannot go on from it.
  void restore_state(const nlohmann::json& state);

 private:
  const config::Config& config_;
  const data::DataSplit& data_;
  model::Learner& evaluator_;
  RunListener& listener_;
  std::unique_ptr<protocol::Protocol> protocol_;
  std::unique_ptr<server::ParameterServer> server_;
  UpdatePool pool_;
  RemoteShards* remote_;
  metrics::RunStatistics stats_;
  int64_t evaluated_version_ = -1;
  double evaluated_time_ = -1;
  bool diverged_ = false;  // a `diverged` record was logged: once per run, resumes included
};

}  // namespace hetps::engine
