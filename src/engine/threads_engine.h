// The threads engine: a real run on one machine. Workers are threads, each with its own model;
// the server side (protocol, shards, evaluations) runs on the calling thread. Messages move by
// pointer: a pull reply carries a shared, immutable snapshot of the model (one per version,
// shared by every worker that pulls it) and the buffer the worker writes its update into.
// Time is wall time since the start, less the pauses for evaluations (the workers stop for
// them: time to accuracy and throughput measure training, as on the simulator); heterogeneity is
// injected as delays (InjectedDelays), failures from `cluster.failures`, and no wait goes unnoticed
// (StallInspector).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "config/config.h"
#include "data/dataset.h"
#include "engine/engine.h"
#include "engine/injected_delays.h"
#include "engine/mailbox.h"
#include "engine/model_snapshots.h"
#include "engine/run_gate.h"
#include "engine/server_state.h"
#include "engine/stall_inspector.h"
#include "protocol/protocol.h"
#include "worker/worker.h"

namespace hetps::engine {

class ThreadsEngine : public protocol::Actions {
 public:
  ThreadsEngine(const config::Config& config, const data::DataSplit& data,
                const ModelSource& models, RunListener& listener);
  // Stops the workers and waits for them, however the run ended.
  ~ThreadsEngine() override;

  metrics::Summary run();

  // protocol::Actions
  int64_t apply(const protocol::ApplyOrder& order) override { return state_.apply(order); }
  void reply_pull(int worker, const protocol::WorkerPlan& plan) override;
  void discard(int update_id) override { state_.discard(update_id); }
  void set_optimizer(const protocol::OptimizerOverride& settings) override {
    state_.server().set_override(settings);
  }
  void record(const protocol::ProtocolEvent& event) override { state_.record(event, now()); }
  int64_t version() const override { return state_.server().version(); }

 private:
  using Clock = std::chrono::steady_clock;

  // Server → worker.
  struct PullReply {
    protocol::WorkerPlan plan;
    ModelSnapshot model;
    int64_t version = 0;
    int update_id = 0;
    std::span<float> update;  // the worker writes its update here
    double lr = 0;
    double sent = 0;
    double arrives = 0;  // when the reply's last byte has arrived (injected link delay)
  };
  // Worker → server.
  struct FirstPull {
    int worker = 0;
  };
  struct UpdateReady {
    protocol::UpdateInfo info;  // the payload is in the buffer of `info.id`
  };
  struct WorkerGone {
    int worker = 0;
    std::string error;  // empty for an injected crash
  };
  using ServerMessage = std::variant<FirstPull, UpdateReady, WorkerGone>;

  // Engine time: seconds since the start, less the pauses. `clock_at` maps one back to the
  // clock as the pauses so far stand (a wait across a later pause must re-check).
  double now() const;
  Clock::time_point clock_at(double seconds) const;
  // Evaluates with the workers held at their next step.
  void evaluate_paused(double time);
  void calibrate(const ModelSource& models);
  void serve(const ServerMessage& message);
  void on_worker_gone(const WorkerGone& gone);
  void check_stalls(double time);
  // Worker threads.
  void worker_main(int worker);
  // Runs the worker until the run ends (returns true) or its injected failure time (false).
  bool work(int worker, double fails_at);
  // Sleeps until engine time `seconds`; false once the run stopped.
  bool sleep_until(double seconds);
  void stop_workers();

  const config::Config& config_;
  const data::DataSplit& data_;
  const ModelSource& models_;
  std::unique_ptr<model::Learner> evaluator_;
  ServerState state_;
  InjectedDelays delays_;
  StallInspector inspector_;
  ModelSnapshots snapshots_;
  std::vector<std::unique_ptr<model::Learner>> learners_;
  std::vector<std::unique_ptr<worker::Worker>> workers_;
  Mailbox<ServerMessage> inbox_;
  std::vector<std::unique_ptr<Mailbox<PullReply>>> mailboxes_;
  std::vector<int> outstanding_;  // server thread: each worker's update id in the works, or -1
  std::vector<bool> dead_;        // server thread
  RunGate gate_;
  std::atomic<Clock::rep> paused_{0};  // total pause, in clock ticks
  std::vector<std::thread> threads_;
  Clock::time_point start_;
};

}  // namespace hetps::engine
