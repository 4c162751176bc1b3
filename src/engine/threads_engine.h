// The threads engine: a real run on one machine. Workers are threads, each with its own model;
// the server side (engine::ServerLoop: protocol, shards, evaluations) runs on the calling
// thread. Messages move by pointer: a pull reply carries a shared, immutable snapshot of the
// model (one per version, shared by every worker that pulls it) and the buffer the worker
// writes its update into. Time is wall time since the start, less the pauses for evaluations
// (the workers stop for them: time to accuracy and throughput measure training, as on the
// simulator); heterogeneity is injected as delays (InjectedDelays), failures from
// `cluster.failures` (engine::run_worker), and no wait goes unnoticed (the loop's
// StallInspector).
//
// Checkpoints (issue 9; what they hold is in threads_engine_state.cpp). The workers run
// concurrently, so a checkpoint needs a cut at which nothing is computed or travelling:
//   1. A checkpoint is due (`run.checkpoint_interval` of engine time, or the stop flag): the
//      server loop drains. It keeps handing updates to the protocol, but holds back every pull
//      reply the protocol makes (ServerLoop, "Checkpoints"), so each worker comes to rest once
//      its update is handed over: it waits in `receive` for a reply it will not get yet. A
//      member rests once its leader's merge has arrived; a leader gathering does not rest.
//   2. Every message that could end the drain reaches the server's inbox: an update, a crash
//      (WorkerGone, sent after the worker wrote where it stopped), and a hang's WentSilent.
//      Those messages are also the happens-before edges: a worker writes its Worker, its loop
//      state and its part of the timeline before it sends, so the server may read them once
//      it has handled the message and sees the worker resting. A crashed worker is not waited
//      for, nor a hung one once silent; one whose failure is due is waited for until it says so.
//   3. Once the workers rest, the engine stops its clock as an evaluation does (the workers are
//      held at their next sleep, and a wait for a failure time sees the clock standing before
//      it) and checks again at the time it stands at, T, that they rest and that no shard's
//      injected crash came by T (ServerLoop::may_checkpoint_at). Then it saves: the loop's state
//      (the server state, the held replies with their models), every Worker and loop state, the
//      timeline, the link queues, the death notices a leader has not read, and T.
//   4. The held replies leave and the run goes on, its clock restarted where it stood; on a
//      stop, the engine throws Interrupted(T) and its destructor stops the workers.
// A resumed run is built from the same config and restores that state: its clock starts at T,
// so time to accuracy, the log's times and the injected delays (speeds, episodes, traces, link
// queues) continue; the step calibrated at the start is reused, not measured again. Workers
// start resting (no first pull) and the held replies are sent first. A worker whose crash or
// hang came before T is not started: its effect is in the restored state.
//
// An injected server-shard crash (`cluster.shard_failures`, shard_failures.h) ends the run at
// its time: the loop throws ShardCrashed, even while draining, so no checkpoint follows the
// crash and no summary is written; the destructor stops the workers. A run resumed after it
// skips the crashes that happened (RunCheckpoints::crashed_shards).
#pragma once

#include <atomic>
#include <chrono>
#include <latch>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "config/config.h"
#include "data/dataset.h"
#include "engine/checkpoint_schedule.h"
#include "engine/engine.h"
#include "engine/injected_delays.h"
#include "engine/mailbox.h"
#include "engine/run_checkpoints.h"
#include "engine/run_gate.h"
#include "engine/server_loop.h"
#include "engine/worker_loop.h"
#include "protocol/protocol.h"
#include "worker/worker.h"

namespace hetps::engine {

class ThreadsEngine : public ServerLoop::Engine, public ServerLoop::Checkpointer {
 public:
  ThreadsEngine(const config::Config& config, const data::DataSplit& data,
                const ModelSource& models, RunListener& listener);
  // Stops the workers and waits for them, however the run ended.
  ~ThreadsEngine() override;

  // Throws Interrupted when `checkpoints.stop` was set (after handing over a checkpoint),
  // ShardCrashed at an injected server-shard crash, and checkpoint::CheckpointError when
  // `checkpoints.resume_from` does not fit this run.
  metrics::Summary run(const RunCheckpoints& checkpoints = {});

  // ServerLoop::Engine
  void send(ServerLoop::Reply reply) override;
  void serve_one(double deadline, ServerLoop& server) override;
  // Evaluates with the workers held at their next step and the clock standing still.
  void evaluate(ServerState& state, double time) override;
  void tell_member_gone(int leader, int member) override;
  std::vector<int> close_leader(int leader) override;
  // ServerLoop::Checkpointer
  CheckpointSchedule& schedule() override { return *schedule_; }
  bool take(ServerLoop& loop) override;

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
  struct WentSilent {  // an injected hang began (ServerLoop::on_worker_silent)
    int worker = 0;
  };
  struct ProgressReport {  // ServerLoop::on_round_progress
    int worker = 0;
    RoundProgress progress = RoundProgress::kWithLeader;
    int update_id = 0;
  };
  using ServerMessage =
      std::variant<FirstPull, UpdateReady, WorkerGone, OrphanedUpdate, WentSilent, ProgressReport>;

  // Engine time: seconds since the start, less the pauses. `clock_at` maps one back to the
  // clock as the pauses so far stand (a wait across a later pause must re-check).
  double now() const;
  Clock::time_point clock_at(double seconds) const;
  void calibrate();
  // Logs a warning when the worker threads and the server outnumber the cores, and when a
  // speed above 1 cannot be injected.
  void record_setup_warnings();
  // Runs `during` with the clock standing still and the workers held at their next sleep; the
  // clock goes on where it stood (a throw leaves it standing: the run is over).
  template <typename During>
  void with_clock_stopped(During during);
  // Whether worker `worker`'s injected failure came before the run resumed at `time`.
  bool failed_before(int worker, double time) const;
  void worker_main(int worker);
  // Sleeps until engine time `seconds`; false once the run stopped.
  bool sleep_until(double seconds);
  void stop_workers();
  // The engine's whole state at `time`, the workers resting and the clock stopped.
  nlohmann::json save_state(double time);
  // Into an engine built from the same config, before its workers start; returns the time the
  // run goes on from.
  double restore_state(const nlohmann::json& state);

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
  std::vector<WorkerLoopState> loop_states_;  // each written by its worker's thread
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
  // Counts down as each worker thread has warmed up its model; the clock starts after the last.
  std::optional<std::latch> warmed_;
  Clock::time_point start_;
  // When this process began the run; a resumed run's is moved back by the wall time the run had
  // taken at its checkpoint, so the summary's wall seconds cover the whole run.
  Clock::time_point wall_start_;
  // What `run` was given, and when its checkpoints fall due.
  const RunCheckpoints* checkpoints_ = nullptr;
  std::optional<CheckpointSchedule> schedule_;
};

}  // namespace hetps::engine
