// One worker of a real engine (threads, mpi), whatever carries its messages: ask for the model,
// run the plan, pad the steps to the worker's injected speed, push the update, again, until the
// run ends. A member sends its update to its leader instead; a leader first gathers its
// members' updates and pushes their merge (protocol.h, "Leaders"). `cluster.failures` act here: at
// its failure time a worker stops where it is; a crash tells the server it is gone, a hang goes
// silent until the run ends. An error while training is reported to the server, which stops the run
// with it.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "config/config.h"
#include "engine/injected_delays.h"
#include "engine/model_snapshots.h"
#include "engine/round_progress.h"
#include "metrics/activity_timeline.h"
#include "protocol/protocol.h"
#include "worker/worker.h"

namespace hetps::engine {

// A pull reply as the worker receives it.
struct PulledModel {
  protocol::WorkerPlan plan;
  std::span<const float> model;
  ModelSnapshot snapshot;  // keeps `model` alive where it is shared (threads); may be empty
  int64_t version = 0;
  int update_id = 0;
  std::span<float> update;  // where the worker writes its update
  double lr = 0;
  double arrives = 0;  // when the reply may be used (a link delay the engine injects)
  // The communication time to report with the next push (UpdateInfo::pull_seconds and a part
  // of push_seconds): this reply's transfer, and on mpi the previous push's send, which is
  // known only once it is over.
  double pull_seconds = 0;
  double previous_push_seconds = 0;
};

// What a leader hears from a member: its update (to be read where it lies), or its death.
struct MemberMessage {
  int member = 0;
  bool gone = false;
  protocol::UpdateInfo info;
  std::span<const float> update;
  double arrives = 0;  // when the update may be used (a link delay the engine injects)
};

// The worker's end of the engine's transport. Times are seconds of the engine's clock.
class WorkerLink {
 public:
  virtual ~WorkerLink() = default;
  virtual double now() const = 0;
  virtual void ask_first_pull() = 0;
  // The next reply, or nothing once `deadline` passed or the run is over.
  virtual std::optional<PulledModel> receive(double deadline) = 0;
  virtual bool run_over() = 0;
  // Returns false when the run ended first.
  virtual bool sleep_until(double seconds) = 0;
  // When an update pushed at `sent` reaches the server (an injected link delay, or `sent`);
  // `sparse` as for `push`.
  virtual double push_arrival(double sent, const worker::SparseDelta* sparse) = 0;
  // Pushes `update` to the server; `sparse`, when not null, holds the entries of a top-k
  // compressed update, which are what travels (`update` holds them too, with zeros elsewhere).
  virtual void push(const protocol::UpdateInfo& info, std::span<const float> update,
                    const worker::SparseDelta* sparse) = 0;
  // When an update a member sends at `sent` reaches `leader`.
  virtual double member_push_arrival(int leader, double sent) = 0;
  // Sends this member's update to `leader`; when the leader is gone, the server drops it and
  // answers this worker's pull itself.
  virtual void send_to_leader(int leader, const protocol::UpdateInfo& info,
                              std::span<const float> update) = 0;
  // A leader's wait for its members: the next message, or nothing once `deadline` passed or
  // the run is over.
  virtual std::optional<MemberMessage> receive_from_member(double deadline) = 0;
  // Tells the server where this worker's update of `info` is, for its stall messages (a member's
  // told before it is handed to the leader, so that the notice comes before the leader's push).
  virtual void report_progress(const protocol::UpdateInfo& info, RoundProgress progress) = 0;
  // Tells the server this worker is gone: `error` is empty for an injected crash, and
  // `stranded_members` are the members whose updates a leader held and takes with it.
  virtual void report_gone(const std::string& error, const std::vector<int>& stranded_members) = 0;
  // A hung worker's silence: returns once the run is over.
  virtual void wait_for_end() = 0;
};

// What a worker's loop carries from round to round beyond its trainer, for checkpoints. The
// engine owns it; the worker's thread writes it, and another thread reads it only once the
// worker rests (waits for a reply with nothing of its own computed or travelling) and the
// engine learned so through a message sent after the write.
struct WorkerLoopState {
  int64_t pushes = 0;  // updates sent so far: the last one's UpdateInfo::clock
  // The run continues from a checkpoint, where the worker waited for a reply: it waits for it
  // again instead of asking for a first pull.
  bool resumed = false;
};

// Runs worker `trainer` until the run ends, its injected `failure` (may be null) or an error,
// recording where its time goes into `activity`, from `state` on. An error is reported to the
// server, except ServerSilent (engine.h), which is thrown on.
void run_worker(worker::Worker& trainer, const InjectedDelays& delays, WorkerLink& link,
                const config::WorkerFailure* failure, metrics::WorkerActivity& activity,
                WorkerLoopState& state);

// The failure `cluster.failures` injects into `worker`, or null.
const config::WorkerFailure* failure_of(const config::ClusterConfig& cluster, int worker);

}  // namespace hetps::engine
