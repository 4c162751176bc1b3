// The virtual-time simulator (DESIGN.md, "The simulator's clock"). Gradients are computed for
// real, in the order virtual time dictates; time comes from the cluster model. A worker's
// steps are computed at the virtual moment the server sends its pull reply — the global model
// is then exactly the version in that reply — and delivered when the steps' virtual time
// ends, so gradient protocols need no copy of the model per step. Same config and seed ⇒ the
// same run log, bit for bit. `cluster.failures` silence workers at their virtual time: the
// update a failing worker has in flight is lost, and its pulls are never answered again.
// Leaders (protocol.h) gather their members' updates over the workers' links and relay the
// model to them (ReplyBatch). Checkpoints are taken between events, every
// `run.checkpoint_interval` of virtual time (sim_engine_state.cpp holds what they save).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <vector>

#include "cluster/cluster_model.h"
#include "config/config.h"
#include "data/dataset.h"
#include "engine/engine.h"
#include "engine/reply_batch.h"
#include "engine/run_checkpoints.h"
#include "engine/server_state.h"
#include "engine/sim_network.h"
#include "engine/stall_inspector.h"
#include "metrics/activity_timeline.h"
#include "model/learner.h"
#include "protocol/protocol.h"
#include "worker/worker.h"

namespace hetps::engine {

class SimEngine : public protocol::Actions {
 public:
  SimEngine(const config::Config& config, const data::DataSplit& data, const ModelSource& models,
            RunListener& listener);
  ~SimEngine() override;

  // Throws Interrupted when `checkpoints.stop` was set (after handing over a checkpoint), and
  // checkpoint::CheckpointError when `checkpoints.resume_from` does not fit this run.
  metrics::Summary run(const RunCheckpoints& checkpoints = {});

  // protocol::Actions
  int64_t apply(const protocol::ApplyOrder& order) override;
  void reply_pull(int worker, const protocol::WorkerPlan& plan) override;
  void discard(int update_id) override;
  void set_optimizer(const protocol::OptimizerOverride& settings) override;
  void record(const protocol::ProtocolEvent& event) override;
  int64_t version() const override { return state_.server().version(); }
  // Holds every shard for `cluster.switch_overhead_pulls` idle pulls: the pull replies not
  // sent yet leave that much later.
  double charge_switch() override;

 private:
  enum class EventKind {
    Evaluation,
    PushReady,            // a worker's steps are done: its update enters its uplink
    UpdateArrives,        // the last byte of an update has reached the server shards
    MemberUpdateArrives,  // a member's update has reached its leader
    WorkerFails,          // the worker's entry of `cluster.failures` comes due
  };
  struct Event {
    double time;
    uint64_t sequence;  // ties broken by insertion order: deterministic
    EventKind kind;
    int worker;     // -1 for an evaluation; the sender of an update
    int update_id;  // updates only
    bool operator>(const Event& other) const {
      return time != other.time ? time > other.time : sequence > other.sequence;
    }
  };
  struct WorkerClock {
    int64_t steps = 0;  // steps computed so far: indexes the cluster's step noise
    int64_t pushes = 0;
    double last_pull_seconds = 0;  // transfer time of the last pull reply
    double model_arrived = 0;      // when the last pull reply's model arrived
    // Computed or travelling, not yet handed to the protocol or a leader: the engine owns it.
    int update_in_flight = -1;
    bool silent = false;  // crashed or hung: it sends nothing more and is sent nothing
    bool hung = false;    // silent without anyone knowing: replies to it are still awaited
    int leader = protocol::kServer;  // where its current plan sends its update
    // A leader's round: the members it still waits for, the updates it holds (its own, once
    // computed, is `update_in_flight`) and whether its own steps are done.
    std::vector<int> awaited_members;
    std::vector<int> gathered;
    std::vector<int> early_updates;  // from members answered before it: for its next round
    bool own_update_ready = false;
    // The entries its own update carries when top-k compressed; empty when dense.
    std::optional<worker::SparseDelta> compressed;

    nlohmann::json save_state() const;
    void restore_state(const nlohmann::json& state);
  };

  // The run's first moments: failures scheduled, the protocol started, the first pulls
  // answered, the initial model evaluated.
  void begin();
  // Hands the state to `checkpoints.save` when a checkpoint is due before `next` or a stop was
  // asked for; throws Interrupted after a stop's checkpoint.
  void checkpoint_before(const Event& next, const RunCheckpoints& checkpoints);
  nlohmann::json save_state() const;
  void restore_state(const nlohmann::json& state);

  // Only updates keep the run going: an evaluation or a failure still to come does not.
  void schedule(double time, EventKind kind, int worker = -1, int update_id = -1);
  // Whether the event is an update of a worker that has since fallen silent: it was counted
  // out of the updates in flight when the worker failed.
  bool is_lost(const Event& event) const;
  // Reports waits that passed `run.stall_*` by virtual time `time` (a hung worker); throws
  // StallError at the timeout, as the real engines do.
  void inspect_stalls_until(double time);
  void fail(int worker);
  bool crashed(int worker) const;
  // Sends the replies the protocol made since the last call (ReplyBatch): each worker's steps
  // are computed now, on the model its reply carries.
  void send_replies();
  void send_reply(const ReplyBatch::Route& route);
  // Links are FIFO queues served in virtual-time order, so a message enters the network only
  // when its event comes up, never when it is foreseen.
  void send_update(int update_id);
  void push_to_servers(int update_id);
  void gather(int leader, int update_id);
  // Pushes a leader's merged update once its own steps are done and no member is awaited.
  void push_merged_when_complete(int leader);
  // Tells the stall inspector which members a leader whose own steps are done still awaits.
  void name_awaited_members(int leader);
  // A member whose leader crashed drops its update and asks the server for the model.
  void orphan(int member, int update_id);
  void deliver(int update_id);
  // When every shard has finished the work queued on it, starting no earlier than now.
  double servers_free_at() const;
  // Throws StallError, as the stall inspector would at its timeout, when the shards are now
  // busy for longer than `run.stall_timeout_s`: every reply waits that long. `cause` names
  // the setting that made the work ("cluster.apply_gbps = 1e-09"), made only then.
  void require_servers_free_within_timeout(const std::function<std::string()>& cause);

  const config::Config& config_;
  RunListener& listener_;
  // One model computes every worker's steps, one at a time, and the evaluations.
  std::unique_ptr<model::Learner> learner_;
  ServerState state_;
  cluster::ClusterModel cluster_;
  StallInspector inspector_;
  std::unique_ptr<SimNetwork> network_;
  ReplyBatch replies_;
  std::vector<std::unique_ptr<worker::Worker>> workers_;
  std::vector<WorkerClock> clocks_;
  metrics::ActivityTimeline timeline_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::vector<double> shard_free_at_;
  std::vector<double> shard_fraction_;     // each shard's share of the model's bytes
  std::vector<double> model_shard_bytes_;  // each shard's bytes of the whole model
  double step_work_seconds_ = 0;           // one step's compute at speed 1
  // The whole model from the servers to a worker over idle links, the mean over workers.
  double idle_pull_seconds_ = 0;
  double model_bytes_ = 0;
  double now_ = 0;
  uint64_t sequence_ = 0;
  int updates_in_flight_ = 0;
  double next_checkpoint_ = 0;  // virtual time
  // When this process began the run; a resumed run's is moved back by the wall time the run
  // had taken when its checkpoint was saved, so the summary's wall seconds cover the whole run.
  std::chrono::steady_clock::time_point wall_start_;
};

}  // namespace hetps::engine
