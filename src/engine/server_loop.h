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
//      so noticing the silence is left to the StallInspector, as for a real hang.
//   3. The engine stops its workers and calls `state().finish`.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "config/config.h"
#include "data/dataset.h"
#include "engine/engine.h"
#include "engine/model_snapshots.h"
#include "engine/reply_batch.h"
#include "engine/server_state.h"
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
  // Returns why the run stopped ("max_samples", "max_time", "target", or "stalled" when every
  // worker is gone). Throws StallError past `run.stall_timeout_s`, std::runtime_error when a
  // worker reports an error.
  std::string serve();

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
  // The id of the update `worker` owes the server, or -1.
  int owed_update(int worker) const { return owed_[static_cast<size_t>(worker)]; }

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
  bool every_worker_gone() const;
  // When the next injected hang begins (infinity when none is left).
  double next_hang() const;
  // Logs every injected hang that began by `time`, at its own time.
  void log_hangs_until(double time);
  // Sends the replies made since the last call: before an apply and after each message.
  void send_replies();
  void release_owed(int worker);

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
  std::vector<const config::WorkerFailure*> hangs_ahead_;  // not logged yet, the next one last
};

}  // namespace hetps::engine
