// The server side of a real engine (threads, mpi), whatever carries its messages: the protocol's
// actions carried out on ServerState, the record of which update each worker owes (so that a
// crash discards it and the StallInspector names whoever is late), and the loop that ends the
// run. An engine supplies the clock and the Engine below (transport, evaluations); the loop is:
//   1. `start`: the protocol starts and the initial model is evaluated (time 0).
//   2. `serve`: the engine hands over workers' messages one at a time (`on_first_pull`,
//      `on_update`, `on_worker_gone`); between them the loop evaluates every
//      `train.eval_interval`, checks for stalls and stops at the budget, `train.max_time`, the
//      target (`train.stop_at_target`) or when every worker is gone. At the time of each
//      injected hang (`cluster.failures`) it logs a `worker_hung` record, as the simulator
//      does: the trace of the injection, written from the config. A hung worker says nothing,
//      so noticing the silence is left to the StallInspector, as for a real hang. At the time
//      of an injected server-shard crash (`cluster.shard_failures`) it logs a `shard_failed`
//      record and throws ShardCrashed: the shard's part of the model is gone (shard_failures.h).
//   3. The engine stops its workers and calls `state().finish` (not after a throw).
// Checkpoints (an engine that takes them passes a Checkpointer to `serve`) need a consistent cut
// while workers run concurrently. When one is due the loop *drains*: it goes on handing every
// message to the protocol, but holds back every pull reply the protocol makes, so the workers
// come to rest one by one (`workers_at_rest`). Then the engine saves this loop's state (the
// server state, the held replies and who owes what) with its own, and the loop sends the held
// replies and goes on. A resumed loop starts from that state (`restore_state`) and sends the
// held replies first.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "config/config.h"
#include "data/dataset.h"
#include "engine/checkpoint_schedule.h"
#include "engine/engine.h"
#include "engine/model_snapshots.h"
#include "engine/reply_batch.h"
#include "engine/round_progress.h"
#include "engine/server_state.h"
#include "engine/shard_failures.h"
#include "engine/stall_inspector.h"
#include "protocol/protocol.h"

namespace hetps::engine {

class ServerLoop : public protocol::Actions {
 public:
  // A pull reply as the server hands it to the engine to carry.
  struct Reply {
    int worker = 0;
    protocol::WorkerPlan plan;
    ModelSnapshot model;  // the global model of `version`, immutable
    int64_t version = 0;
    int update_id = 0;
    std::span<float> update;  // the pool buffer the worker's update for `update_id` goes into
    double lr = 0;
    double sent = 0;
    int via = protocol::kServer;  // the leader that hands the model on (ReplyBatch)
    int relays = 0;               // a leader's: how many replies it hands on, sent next
  };

  // What the engine does for the loop.
  class Engine {
   public:
    virtual ~Engine() = default;
    virtual void send(Reply reply) = 0;
    // Hands the next message from a worker to `server`, waiting for it until `deadline`
    // (seconds of the engine's clock); returns after one message or at the deadline.
    virtual void serve_one(double deadline, ServerLoop& server) = 0;
    // Evaluates the global model (ServerState::evaluate) as the engine shares the machine
    // with its workers: e.g. with the workers paused and its clock standing still.
    virtual void evaluate(ServerState& state, double time) = 0;
    // Tells `leader` that `member`, whose update it may be waiting for, is dead.
    virtual void tell_member_gone(int leader, int member) = 0;
    // `leader` is dead: returns the members whose updates were sent to it and will never be
    // read; later ones must come back to the server (`on_orphaned_update`).
    virtual std::vector<int> close_leader(int leader) = 0;
    // A reply of the current `version` is held back for a checkpoint and is sent after later
    // applies. The reply carries its model (ModelSnapshot); an engine whose other server shards
    // keep only their newest slice has them keep this version's.
    virtual void keep_for_later(int64_t /*version*/) {}
  };

  // What an engine that takes checkpoints does for `serve`.
  class Checkpointer {
   public:
    virtual ~Checkpointer() = default;
    virtual CheckpointSchedule& schedule() = 0;
    // Called once the workers seemed at rest during a drain: the engine stops its clock, asks
    // `loop.may_checkpoint_at` the time it stands at (no failure can come due while it stands)
    // and, if so, saves its state with `loop.save_state()`. Returns whether it did;
    // throws Interrupted after the checkpoint when a stop was asked for.
    virtual bool take(ServerLoop& loop) = 0;
  };

  // `clock` gives the engine's time in seconds since the run began; `describe_worker` names a
  // worker in stall and failure messages ("worker 2 (rank 3 on host node7)"); `remote`, the
  // server shards other processes hold (ServerState).
  ServerLoop(const config::Config& config, const data::DataSplit& data, model::Learner& evaluator,
             RunListener& listener, Engine& engine, std::function<double()> clock,
             std::function<std::string(int worker)> describe_worker,
             RemoteShards* remote = nullptr);

  ServerState& state() { return state_; }
  double now() const { return clock_(); }

  void start();
  // Returns why the run stopped ("max_samples", "max_time", "target", or "every_worker_failed"
  // when every worker is gone). Throws StallError past `run.stall_timeout_s`, std::runtime_error
  // when a worker reports an error, ShardCrashed at an injected shard crash (checked first, before
  // the run's other ends at the same wake-up). With a `checkpointer`, drains and has it take
  // checkpoints when its schedule says so (and throws its Interrupted).
  std::string serve(Checkpointer* checkpointer = nullptr);
  // Before `serve` on a resumed run: the injected crashes of `shards` came after the
  // checkpoint and ended the run before; they are not injected again (RunCheckpoints).
  void skip_shard_failures(const std::vector<int>& shards) { shard_failures_.skip(shards); }

  // What workers say, as the engine delivers it.
  void on_first_pull(int worker);
  // The payload is in the pool buffer of `info.id`; `info.now` is set here. `bytes_to_server`
  // is what the push carried to the server shards (engine::push_bytes). A leader's merged
  // update also frees its members' buffers.
  void on_update(protocol::UpdateInfo info, int64_t bytes_to_server);
  // `error` is empty for an injected crash; `stranded_members` are those whose updates a dead
  // leader held.
  void on_worker_gone(int worker, const std::string& error,
                      const std::vector<int>& stranded_members);
  // A member's update could not reach its leader, which is dead: the server drops it and
  // answers the member's pull itself.
  void on_orphaned_update(int member);
  // An injected hang has begun and `worker` stopped for good. The engine's own notice (a real
  // hang says nothing, and nothing but checkpoints hears of it): the worker's state may now be
  // read from another thread.
  void on_worker_silent(int worker) { silent_[static_cast<size_t>(worker)] = true; }
  // `worker` cannot send the update it owes before `blocker` comes (on mpi, a server shard's
  // slice of its reply): the stall inspector names that, not the worker alone.
  void on_worker_held_up(int worker, std::string blocker) {
    inspector_.held_up(worker, std::move(blocker));
  }
  // `worker` says where its update of the round `update_id` is: with its leader, or (a leader's
  // own) computed while it waits for its members'. Only for the stall messages; a notice of an
  // earlier round (on mpi it may come after the round's merged update) is ignored.
  void on_round_progress(int worker, RoundProgress progress, int update_id);
  // The id of the update `worker` owes the server, or -1.
  int owed_update(int worker) const { return owed_[static_cast<size_t>(worker)]; }

  // Whether, at engine time `time`, every worker rests (its first pull arrived, its last update
  // was handed to the protocol, nothing of it computed or travelling, no leader gathering: it
  // waits for a reply, which is held back or which the protocol holds), is gone, or fell silent
  // at its injected hang. A worker whose crash is due by `time` is waited for until it is
  // reported gone, so that it no longer writes what a checkpoint reads.
  bool workers_at_rest(double time) const;
  // Whether a checkpoint taken at `time` is consistent: the workers rest and no shard's
  // injected crash came by then (its part of the model would be saved as if it lived on).
  bool may_checkpoint_at(double time) const {
    return shard_failures_.due(time) == nullptr && workers_at_rest(time);
  }
  // The loop's part of a checkpoint, taken while the workers rest: the server state, the
  // replies held back (each with the model it carries, once per version), who owes which
  // update, who leads whom, the gone and silent workers, the hangs not logged yet and the next
  // evaluation's time.
  nlohmann::json save_state() const;
  // In place of `start`, into a loop built from the same config: the run goes on from `state`,
  // its held replies sent by `release_replies`. Throws checkpoint::CheckpointError naming what
  // does not fit.
  void restore_state(const nlohmann::json& state);
  // Sends the replies held back, now.
  void release_replies();

  // protocol::Actions
  int64_t apply(const protocol::ApplyOrder& order) override {
    send_replies();  // made on the model before this apply
    return state_.apply(order);
  }
  void reply_pull(int worker, const protocol::WorkerPlan& plan) override;
  void discard(int update_id) override { state_.discard(update_id); }
  void set_optimizer(const protocol::OptimizerOverride& settings) override {
    send_replies();  // made with the learning rate before this change
    state_.set_optimizer(settings);
  }
  void record(const protocol::ProtocolEvent& event) override { state_.record(event, now()); }
  int64_t version() const override { return state_.server().version(); }

 private:
  // Adds `reply`'s model, `times` times, to the bytes from the server or between workers.
  void count_bytes(const Reply& reply, int64_t times);
  bool every_worker_gone() const;
  // When the next injected hang begins (infinity when none is left).
  double next_hang() const;
  // Logs every injected hang that began by `time`, at its own time.
  void log_hangs_until(double time);
  // Logs `crash` at its own time and throws ShardCrashed.
  [[noreturn]] void crash_shard(const config::ShardFailure& crash);
  // Sends the replies made since the last call: before an apply and after each message; holds
  // them back while draining.
  void send_replies();
  // Hands a reply to the engine: it leaves now, and its update is awaited from `awaited_since`,
  // one time for all the replies sent together (a round's): handing each to the engine takes a
  // while, and a stall found at the first one's timeout would leave the others' unnamed.
  void dispatch(Reply reply, double awaited_since);
  void release_owed(int worker);
  // Tells the stall inspector which of its members' updates `leader`, its own computed, still
  // waits for, until it has them all.
  void name_awaited_members(int leader);
  // Drains once a checkpoint is due, and has `checkpointer` take it once the workers rest.
  void checkpoint_when_due(Checkpointer& checkpointer, double time);

  const config::Config& config_;
  ServerState state_;
  Engine& engine_;
  std::function<double()> clock_;
  std::function<std::string(int worker)> describe_worker_;
  StallInspector inspector_;
  ModelSnapshots snapshots_;
  ReplyBatch replies_;
  std::vector<int> owed_;
  std::vector<bool> gone_;
  // Per worker, from its current plan: the leader its update goes to, the members it gathers.
  std::vector<int> leader_of_;
  std::vector<std::vector<int>> gathering_;
  // Per worker, of the round it owes, what it said (on_round_progress): its update is with its
  // leader; (a leader) it gathers its members' updates, its own computed.
  std::vector<bool> with_leader_;
  std::vector<bool> gathering_now_;
  std::vector<const config::WorkerFailure*> hangs_ahead_;  // not logged yet, the next one last
  ShardFailures shard_failures_;
  std::vector<bool> first_pull_seen_;
  std::vector<bool> silent_;
  double next_evaluation_ = 0;
  bool draining_ = false;
  std::vector<Reply> held_;  // made while draining, in order: their `sent` is set when sent
};

}  // namespace hetps::engine
