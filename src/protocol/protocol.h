// The synchronization-protocol interface: pure, deterministic logic that reacts to events and
// answers with decisions. It never reads a clock, sleeps or touches a transport; an engine
// (sim, threads, mpi) supplies time and transport and carries the decisions out.
//
// The life of a worker, as every engine runs it:
//   1. It asks for the model (`on_pull_request`). The protocol answers now or holds the pull
//      (a barrier, a staleness bound) and answers later, with a `WorkerPlan`.
//   2. It runs the plan: up to `max_local_steps` steps on its data, stopping early when its
//      model moved more than `change_threshold`; then it pushes one update (`on_update`),
//      a gradient or a model delta, and goes back to 1.
//   3. The protocol tells the server when to apply which updates (`Actions::apply`), merged
//      by which rule (spec/baselines.md, "Apply rules").
// The controller role (observe run statistics, switch phase, regroup, change thresholds) uses
// the same events: each update carries the worker's measured compute and communication times.
//
// Leaders (Petrel's communities): a plan with `send_to = L` sends the worker's update to worker
// L over the workers' own links instead of to the server, and L's plan names the worker in
// `gather_from`. After its own steps L waits for an update from each worker it gathers from and
// pushes one update: the sample-weighted mean of its own and theirs, summed in worker-id order
// (worker::merge_updates), with `UpdateInfo::members` naming them. That push stands for every
// contributor's: the engine calls `on_update` once, then `on_pull_request` for the leader and
// for each member in id order. A reply to a worker whose last update a leader merged travels
// through that leader when the leader is answered in the same batch (the replies made while the
// engine handles one message, with no apply or optimizer change between them): the server sends
// the model to the leader, which hands it on (worker-to-worker bytes; engine::ReplyBatch). Any
// other reply comes from the server. A member that dies is dropped from its leader's wait; a leader
// that dies takes the updates it holds or awaits with it, and each member that owed it one
// pulls from the server once its own steps are done.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetps::protocol {

enum class UpdateKind {
  Gradient,  // applied through the server optimizer
  Delta,     // a model delta after local steps, merged by the protocol's weights
};

constexpr int kServer = -1;

// How a worker runs until its next push; sent with every pull reply.
struct WorkerPlan {
  UpdateKind kind = UpdateKind::Gradient;
  int max_local_steps = 1;  // push after at most this many steps (local SGD's H, SaPus' τ_max)
  double change_threshold = 0;  // push early once ‖w − w_pull‖² / ‖w_pull‖² > this; 0 = never
  double keep_ratio = 1.0;  // fraction of a delta's entries sent (top-k); 1 = dense
  // A compressed delta's left-out entries are kept and sent with later rounds (error feedback);
  // false: they are dropped, and so is what earlier rounds kept.
  bool error_feedback = true;
  int send_to = kServer;           // where the update goes: the server, or a leader worker's id
  std::vector<int> gather_from{};  // a leader's members, whose updates it merges with its own
  // Every worker's share of the training set (ASHL's D, spec/ashl.md, Algorithm 1), summing to
  // 1; empty: the partition stays as it is. The worker trains on its part of the run's
  // partition re-cut to these shares (data/share_cut.h), always from the partition the run
  // started with, so a later cut depends on the shares alone.
  std::vector<double> data_shares{};
  bool operator==(const WorkerPlan&) const = default;
};

// An update that has arrived at the server. The engine keeps its payload under `id`.
struct UpdateInfo {
  int id = 0;
  int worker = 0;
  UpdateKind kind = UpdateKind::Gradient;
  int64_t base_version = 0;    // the server version the worker's model came from
  int64_t clock = 0;           // this worker's pushes so far, this one included (1, 2, ...)
  int steps = 1;               // local steps the update holds
  int64_t samples = 0;         // samples those steps processed
  double train_loss = 0;       // mean training loss over those steps
  double compute_seconds = 0;  // measured time of those steps (virtual on sim)
  double comm_seconds = 0;     // measured time of the worker's last push + pull round trip
  double push_seconds = 0;     // of comm_seconds: this update's push (ASHL's T_push)
  double pull_seconds = 0;     // of comm_seconds: the pull before it (ASHL's T_pull)
  double now = 0;              // engine time at arrival (virtual on sim)
  std::vector<int> members{};  // a leader's update: the members merged into it, ascending
  // A leader's update: the compute seconds per step of the leader and then of each of
  // `members`, in that order (compute_seconds is the slowest contributor's, the round's).
  std::vector<double> merged_step_seconds{};

  bool operator==(const UpdateInfo&) const = default;
};

// One application of updates to the global model: one new version.
//  Gradient: the server optimizer steps once on Σ weights[k]·gradient[k] (weights sum to 1,
//            or less for a part of the workers: a Petrel community counts for its share).
//  Delta:    W ← W + Σ weights[k]·delta[k], no server momentum.
struct ApplyOrder {
  UpdateKind kind = UpdateKind::Gradient;
  std::vector<int> update_ids;
  std::vector<double> weights;
};

// A protocol event for the run log: a phase change, a regroup, a stage change, ...
struct ProtocolEvent {
  std::string type;        // "phase", "regroup", "straggler", ...
  nlohmann::json details;  // everything else, as the protocol's spec names it
};

// Server optimizer settings a controller may change mid-run (Sync-Switch's rules at a switch).
struct OptimizerOverride {
  double lr_scale = 1.0;  // multiplies the scheduled learning rate
  double momentum = -1;   // < 0: the configured momentum
};

// What a protocol may ask of the engine. Calls take effect in the order they are made.
class Actions {
 public:
  virtual ~Actions() = default;
  // Applies updates to the global model; returns the new server version.
  virtual int64_t apply(const ApplyOrder& order) = 0;
  // Sends `worker` the current global model with its plan.
  virtual void reply_pull(int worker, const WorkerPlan& plan) = 0;
  // Drops the payload of an update the protocol will never apply (e.g. from a dead worker).
  virtual void discard(int update_id) = 0;
  virtual void set_optimizer(const OptimizerOverride& settings) = 0;
  virtual void record(const ProtocolEvent& event) = 0;
  virtual int64_t version() const = 0;
  // The protocol has just switched how the cluster synchronizes (Sync-Switch). A switch in
  // place moves nothing, so a real engine pays only its own work, already in its clock, and
  // adds nothing. The simulator, which would otherwise make a switch free, holds its servers
  // for `cluster.switch_overhead_pulls` model pulls (spec/sync-switch.md). Returns the seconds
  // added.
  virtual double charge_switch() { return 0; }
};

struct RunShape {
  int workers = 1;
  int64_t max_samples = 0;  // the run's budget (Sync-Switch's S derives from it)
  int batch_size = 1;
  double momentum = 0;  // the server optimizer's configured momentum (Sync-Switch's m)
  uint64_t seed = 0;    // the run's seed (Petrel's k-means++ seeding)
};

class Protocol {
 public:
  virtual ~Protocol() = default;
  virtual std::string name() const = 0;

  // Every worker's first pull request follows `start`.
  virtual void start(const RunShape& shape, Actions& actions) = 0;
  virtual void on_pull_request(int worker, Actions& actions) = 0;
  virtual void on_update(const UpdateInfo& update, Actions& actions) = 0;
  // `worker` is dead: it will send nothing more, and nothing may wait for it.
  virtual void on_worker_failed(int worker, Actions& actions) = 0;

  // The whole protocol state (phase, clocks, groups, pending rounds), for checkpoints.
  virtual nlohmann::json save_state() const = 0;
  virtual void restore_state(const nlohmann::json& state) = 0;
};

constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();

}  // namespace hetps::protocol
