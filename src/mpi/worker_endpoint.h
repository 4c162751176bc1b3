// A worker rank's end of the messages (engine::WorkerLink over MPI). Replies are received into
// the rank's own model buffer, updates sent from its own update buffer; every wait is patient
// (patient_wait.h). Links are real here: no link delay is injected, and the communication
// time a worker reports is measured (its last push and the reply's transfer). Wherever the rank
// waits, its clock takes the server's kClock messages: it stands still while the server
// evaluates (run_clock.h).
// Leaders (protocol.h): a leader hands the replies the server relays through it on to their
// members straight from its model buffer (kept untouched until those sends are done), and takes
// its members' updates into a buffer per member. A dead leader's rank hands back to the server
// the members' updates that still reach it.
// With several server shards, a push sends each shard rank its slice (rank 0 also takes the
// header's members; a top-k compressed push sends each its kept entries, sparse_wire.h), and a
// reply from the server is rank 0's header and slice followed by each shard rank's slice; a
// leader hands on the whole model.
// Rank 0 answers a waiting worker, or its stall inspector ends the run, within
// run.stall_timeout_s of engine time (which stands still while rank 0 evaluates): a worker that
// waits for a reply and hears nothing at all from rank 0 for twice that takes rank 0 for hung
// (a stopped process, a frozen host) and throws engine::ServerSilent naming it, which ends the
// job, instead of waiting for good. A shard rank that sends no slice of a reply is told to rank 0,
// whose stall inspector then names it (wait_for_slices).
// Every message is checked before it is used (wire/headers.h, wire/message_checks.h): one of
// another length, from a rank that does not send it, or with values no rank of the run sends
// ends the run with a MessageError naming the sender.
// The end of a run: the server's kStop is its last message, so a worker takes every message
// before it (dropping those it no longer uses); then it tells every other worker it is done
// (kEndOfRun) and takes what they still send until each has said so, so that every send
// between workers completes; then it sends rank 0 its activity timeline (kTimeline) and answers
// kGoodbye (`say_goodbye`). No stall inspector watches that last wait, so it has a deadline of
// its own.
#pragma once

#include <mpi.h>

#include <array>
#include <deque>
#include <functional>
#include <list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/worker_loop.h"
#include "mpi/messages.h"
#include "mpi/rank_layout.h"
#include "mpi/run_clock.h"
#include "params/layout.h"

namespace hetps::mpi {

class WorkerEndpoint : public engine::WorkerLink {
 public:
  // `slices`: the keys of each server shard, in shard order; `stall_warning_seconds` and
  // `stall_timeout_seconds`: run.stall_warning_s and run.stall_timeout_s.
  WorkerEndpoint(MPI_Comm comm, MPI_Comm slice_comm, const RankLayout& layout,
                 std::vector<params::KeyRange> slices, RunClock& clock,
                 double stall_warning_seconds, double stall_timeout_seconds);

  // Follows the server's clock messages that came first: a time read between two waits (after a
  // step, or a transfer that outlasted an evaluation on rank 0) must leave out that pause too.
  double now() const override {
    follow_server_clock();
    return clock_.now();
  }
  void ask_first_pull() override;
  std::optional<engine::PulledModel> receive(double deadline) override;
  bool run_over() override { return stop_seen_; }
  bool sleep_until(double seconds) override;
  double push_arrival(double sent, const worker::SparseDelta*) override { return sent; }
  void push(const protocol::UpdateInfo& info, std::span<const float> update,
            const worker::SparseDelta* sparse) override;
  double member_push_arrival(int, double sent) override { return sent; }
  void send_to_leader(int leader, const protocol::UpdateInfo& info,
                      std::span<const float> update) override;
  std::optional<engine::MemberMessage> receive_from_member(double deadline) override;
  void report_progress(const protocol::UpdateInfo& info, engine::RoundProgress progress) override;
  void report_gone(const std::string& error, const std::vector<int>& stranded_members) override;
  // A hung worker: tells rank 0 it went silent (kWentSilent, the engine's own notice, so that a
  // checkpoint does not wait for it) and says nothing more until the run ends.
  void wait_for_end() override;

  // Checkpoints (rank_checkpoints.h): rank 0 asks a resting worker for its state while it
  // waits for a reply, or a gone or hung one while it waits for the end; `state_of_this_worker`
  // gives it. Until one is given, a kStateRequest is a MessageError.
  void answer_state_requests(std::function<nlohmann::json()> state_of_this_worker) {
    state_of_this_worker_ = std::move(state_of_this_worker);
  }

  // Waits for the end of the run and for every other worker's, then sends rank 0 `timeline`
  // (metrics::WorkerActivity::to_doubles; nothing when empty) and tells the server this rank
  // is done. Throws engine::StallError naming the workers whose end never came once no
  // message came for `patience` seconds (run.stall_timeout_s): a worker rank that left before
  // the run (its start barrier gave up while the others' passed) never ends it, and a job that
  // goes on after a StallError, as a test binary does, would otherwise wait here for good.
  void say_goodbye(double patience, std::span<const double> timeline);

 private:
  // A reply handed on to a member: the header stays put until MPI is done with it.
  struct Relay {
    ReplyHeader header;
    std::array<MPI_Request, 2> requests;
  };

  // Takes the reply whose header waits from `source` (the server or a leader); `use` is false
  // once the run is over (nothing is handed on then).
  engine::PulledModel take_reply(int source, bool use);
  // Waits until `awaited_shard` says nothing is awaited any more (nullopt); while it names a
  // shard rank's shard (> 0; 0: rank 0 or a leader), tells rank 0 so (kAwaitingShard) after
  // half of run.stall_warning_s, then every run.stall_warning_s: its stall inspector, which
  // waits for this worker's update, would otherwise blame this worker for a hung shard. Told again,
  // as the notice may reach rank 0 before it waits for this worker (a push that reached rank 0 but
  // not the shard rank); told 0 once the wait ends after a notice, so that a shard that answered
  // late is not blamed for a later wait.
  void wait_on_shards(const std::function<std::optional<int>()>& awaited_shard);
  // Throws engine::ServerSilent: rank 0 was waited on for twice run.stall_timeout_s for
  // `awaited` ("a reply"), longer than its stall inspector takes to end a run.
  [[noreturn]] void server_taken_for_hung(std::string_view awaited) const;
  // Where a part of an update goes.
  struct UpdatePart {
    int rank;
    params::KeyRange keys;
  };
  // Sends the header and the part of the update to each destination (a leader's members to the
  // first), and waits until they are sent. A compressed update (`sparse` not null) sends each
  // part's kept entries (sparse_wire.h) instead of its floats.
  void send_update(const protocol::UpdateInfo& info, std::span<const float> update,
                   const worker::SparseDelta* sparse, const std::vector<UpdatePart>& parts,
                   Tag header_tag, Tag payload_tag);
  engine::MemberMessage take_member_update(const MPI_Status& header);
  // The member a kMemberGone names.
  int take_gone_member(const MPI_Status& message);
  // Takes one message after the run (or while dead) and drops it, handing a member's update
  // back to the server while this rank is a dead leader and the run goes on.
  void take_and_drop(const MPI_Status& message);
  void wait_for_relays();
  // Takes a kStateRequest from rank 0 and answers it with this worker's state (kWorkerState).
  void send_state();
  // Takes messages until rank 0's kStop and every message before it came.
  void take_until_stop();
  // Takes the server's kClock messages that came, in order, into this rank's clock.
  // Const: it moves the run's clock (a reference), not this endpoint.
  void follow_server_clock() const;

  MPI_Comm comm_;
  MPI_Comm slice_comm_;  // the other shard ranks' slices of replies (RankSetup)
  const RankLayout& layout_;
  int server_;
  std::vector<params::KeyRange> slices_;
  RunClock& clock_;  // follows the server's (kClock) wherever this rank waits
  double stall_warning_seconds_;
  double stall_timeout_seconds_;
  // While a reply is awaited: when rank 0 was last heard from (or the wait began).
  std::optional<double> server_heard_at_;
  MessageBounds bounds_;
  std::vector<float> model_;
  std::vector<float> update_;
  UpdateHeader pushed_;                      // the header in flight during a push
  std::vector<int> pushed_members_;          // ... and a leader's members
  std::vector<double> pushed_step_seconds_;  // ... and everyone's seconds per step
  double push_seconds_ = 0;                  // the last push's duration
  std::list<Relay> relays_;                  // a list: MPI reads each header where it was put
  std::map<int, std::vector<float>> member_updates_;  // by member
  std::deque<int> gone_members_;                      // kMemberGone taken while not gathering
  bool gone_ = false;                                 // this worker reported itself gone
  bool stop_seen_ = false;                            // the server's kStop came
  bool stop_received_ = false;                        // ... and every message before it was taken
  std::set<int> workers_not_ended_;                   // the others, until their kEndOfRun
  std::function<nlohmann::json()> state_of_this_worker_;
};

}  // namespace hetps::mpi
