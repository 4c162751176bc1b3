// The threads engine: a real run on one machine. Workers are threads, each with its own model;
// the server side (engine::ServerLoop: protocol, shards, evaluations) runs on the calling
// thread. Messages move by pointer: a pull reply carries a shared, immutable snapshot of the
// model (one per version, shared by every worker that pulls it) and the buffer the worker
// writes its update into. Time is wall time since the start, less the pauses for evaluations
// (the workers stop for them: time to accuracy and throughput measure training, as on the
// simulator); heterogeneity is injected as delays (InjectedDelays), failures from
// `cluster.failures` (engine::run_worker), and no wait goes unnoticed (the loop's
// StallInspector).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "config/config.h"
#include "data/dataset.h"
#include "engine/engine.h"
#include "engine/injected_delays.h"
#include "engine/mailbox.h"
#include "engine/run_gate.h"
#include "engine/server_loop.h"
#include "engine/worker_loop.h"
#include "protocol/protocol.h"
#include "worker/worker.h"

namespace hetps::engine {

class ThreadsEngine : public ServerLoop::Engine {
 public:
  ThreadsEngine(const config::Config& config, const data::DataSplit& data,
                const ModelSource& models, RunListener& listener);
  // Stops the workers and waits for them, however the run ended.
  ~ThreadsEngine() override;

  metrics::Summary run();

  // ServerLoop::Engine
  void send(ServerLoop::Reply reply) override;
  void serve_one(double deadline, ServerLoop& server) override;
  // Evaluates with the workers held at their next step and the clock standing still.
  void evaluate(ServerState& state, double time) override;
  void tell_member_gone(int leader, int member) override;
  std::vector<int> close_leader(int leader) override;

 private:
  using Clock = std::chrono::steady_clock;
  class Link;  // a worker thread's end of the mailboxes

  // Server → worker.
  struct PullReply {
    ServerLoop::Reply reply;
    double arrives = 0;  // when the reply's last byte has arrived (injected link delay)
  };
  // Worker → server.
  struct FirstPull {
    int worker = 0;
  };
  struct UpdateReady {
    protocol::UpdateInfo info;  // the payload is in the buffer of `info.id`
    int64_t bytes = 0;          // what it would carry on a wire (engine::push_bytes)
  };
  struct WorkerGone {
    int worker = 0;
    std::string error;  // empty for an injected crash
    std::vector<int> stranded_members;
  };
  struct OrphanedUpdate {
    int member = 0;
  };
  using ServerMessage = std::variant<FirstPull, UpdateReady, WorkerGone, OrphanedUpdate>;

  // Engine time: seconds since the start, less the pauses. `clock_at` maps one back to the
  // clock as the pauses so far stand (a wait across a later pause must re-check).
  double now() const;
  Clock::time_point clock_at(double seconds) const;
  void calibrate();
  void worker_main(int worker);
  // Sleeps until engine time `seconds`; false once the run stopped.
  bool sleep_until(double seconds);
  void stop_workers();

  const config::Config& config_;
  RunListener& listener_;
  const data::DataSplit& data_;
  const ModelSource& models_;
  std::unique_ptr<model::Learner> evaluator_;
  ServerLoop loop_;
  InjectedDelays delays_;
  metrics::ActivityTimeline timeline_;  // each worker's part written by its thread alone
  std::vector<std::unique_ptr<model::Learner>> learners_;
  std::vector<std::unique_ptr<worker::Worker>> workers_;
  Mailbox<ServerMessage> inbox_;
  std::vector<std::unique_ptr<Mailbox<PullReply>>> mailboxes_;
  // Member → leader: a leader reads these only while it gathers.
  std::vector<std::unique_ptr<Mailbox<MemberMessage>>> member_mailboxes_;
  std::vector<double> model_arrives_;  // per worker: when its last reply arrives (server thread)
  RunGate gate_;
  std::atomic<Clock::rep> paused_{0};  // total pause, in clock ticks
  // While an evaluation runs the engine's time stands at `frozen_at_` for every thread.
  std::atomic<bool> frozen_{false};
  std::atomic<double> frozen_at_{0};
  std::vector<std::thread> threads_;
  Clock::time_point start_;
};

}  // namespace hetps::engine
