// The messages between the ranks. A header is a trivially copyable struct sent as bytes: every
// rank runs the same hetps binary on the same kind of machine. A model or an update travels as
// its own message of floats, straight from and into the buffer it lives in.
//   worker → server: kFirstPull (empty); kUpdateHeader (UpdateHeader) followed by
//                    kUpdateMembers and kUpdateStepTimes (a leader's update: its members, and
//                    everyone's seconds per step, doubles) and kUpdatePayload (the
//                    update), or for a top-k compressed update kSparseIndices and
//                    kSparseValues (its kept entries, sparse_wire.h); kWorkerGone (the error, empty
//                    for an injected crash) followed by kGoneMembers (the members whose updates a
//                    leader took with it); kOrphanedUpdate (a dead leader hands back a member's
//                    update it will never merge: the member's id); at the end kTimeline (its
//                    activity timeline, doubles: metrics::WorkerActivity::to_doubles; not sent
//                    when run.timeline_intervals = 0) and kGoodbye (empty, the worker's last
//                    message).
//   server → worker: kReplyHeader (ReplyHeader) followed by kReplyModel (the model), then for a
//                    leader kReplyMembers (whom it gathers from) and one kRelay (RelayEntry) per
//                    reply it hands on, or for a plan that re-cuts the data kReplyShares (every
//                    worker's share, doubles; never in a leader's community); kMemberGone (a
//                    member's id: do not wait for it); kClock
//                    (RunClock::State: the server's clock stands still for an evaluation, or
//                    runs on after it, run_clock.h); kStop (empty, the server's last message:
//                    the run is over).
//   leader → member: kReplyHeader and kReplyModel, the relayed reply.
//   member → leader: kMemberUpdateHeader (UpdateHeader) followed by kMemberUpdatePayload.
//   worker → worker: kEndOfRun (empty, its last message to every other worker).
//   With several server shards (cluster.servers > 1), rank 0 runs the protocol and holds shard
//   0; ranks 1 … servers−1 hold the others:
//   worker → shard rank: kUpdateHeader and kUpdatePayload, or kSparseIndices and
//                        kSparseValues (its slice of a push); kGoodbye.
//   shard rank → worker: kReplyModel (its slice of a reply, in the order of rank 0's replies),
//                        on RankSetup::slice_comm.
//   rank 0 → shard rank: kShardOrder (shard_orders.h).
//   shard rank → rank 0: kShardModel (its slice, for an evaluation).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "protocol/protocol.h"

namespace hetps::mpi {

enum Tag : int {
  kFirstPull = 1,
  kUpdateHeader,
  kUpdatePayload,
  kWorkerGone,
  kGoodbye,
  kReplyHeader,
  kReplyModel,
  kStop,
  kGoneMembers,
  kOrphanedUpdate,
  kReplyMembers,
  kRelay,
  kMemberGone,
  kMemberUpdateHeader,
  kMemberUpdatePayload,
  kEndOfRun,
  kUpdateMembers,
  kShardOrder,
  kShardModel,
  kSparseIndices,
  kSparseValues,
  kClock,
  kReplyShares,
  kUpdateStepTimes,
  kTimeline,
};

// A pull reply's header: the plan but its list of members (kReplyMembers), and how many
// relays follow.
struct ReplyHeader {
  protocol::UpdateKind kind = protocol::UpdateKind::Gradient;
  int max_local_steps = 1;
  double change_threshold = 0;
  double keep_ratio = 1.0;
  int error_feedback = 1;  // the plan's, as 0 or 1
  int send_to = protocol::kServer;
  int members = 0;  // the plan's gather_from, sent next
  int relays = 0;
  int data_shares = 0;  // the plan's data_shares, sent after its members
  int64_t version = 0;
  int update_id = 0;
  double lr = 0;

  // The plan, once its members and data shares are known.
  protocol::WorkerPlan plan(std::vector<int> gather_from, std::vector<double> data_shares) const;
};

// A reply a leader hands on to `worker`.
struct RelayEntry {
  int worker = 0;
  ReplyHeader header;
};

// An update's header: protocol::UpdateInfo but a leader's members (kUpdateMembers).
struct UpdateHeader {
  int id = 0;
  int worker = 0;
  protocol::UpdateKind kind = protocol::UpdateKind::Gradient;
  int64_t base_version = 0;
  int64_t clock = 0;
  int steps = 1;
  int64_t samples = 0;
  double train_loss = 0;
  double compute_seconds = 0;
  double comm_seconds = 0;
  double push_seconds = 0;
  double pull_seconds = 0;
  int members = 0;
  int64_t kept_entries = kDense;  // a top-k compressed push: its entries on every shard together

  static constexpr int64_t kDense = -1;
  static UpdateHeader of(const protocol::UpdateInfo& info);
  bool compressed() const { return kept_entries != kDense; }
  // The bytes the push carries to the server shards (engine::push_bytes), `model_bytes` when
  // dense.
  int64_t pushed_bytes(int64_t model_bytes) const;
  // The info, once a leader's members and their step times are known (empty for others).
  protocol::UpdateInfo info(std::vector<int> members = {},
                            std::vector<double> merged_step_seconds = {}) const;
};

// MPI counts elements in an int.
int element_count(size_t elements);

// Starts sending `header`, which must stay where it is until the request completes.
template <typename Header>
MPI_Request post_header(const Header& header, int to, Tag tag, MPI_Comm comm) {
  static_assert(std::is_trivially_copyable_v<Header>);
  MPI_Request request;
  MPI_Isend(&header, static_cast<int>(sizeof(Header)), MPI_BYTE, to, tag, comm, &request);
  return request;
}

// Receives a header already known to be waiting (see `probe`).
template <typename Header>
Header take_header(int from, Tag tag, MPI_Comm comm) {
  static_assert(std::is_trivially_copyable_v<Header>);
  Header header;
  MPI_Recv(&header, static_cast<int>(sizeof(Header)), MPI_BYTE, from, tag, comm, MPI_STATUS_IGNORE);
  return header;
}

MPI_Request post_floats(std::span<const float> floats, int to, Tag tag, MPI_Comm comm);
MPI_Request post_receive_floats(std::span<float> floats, int from, Tag tag, MPI_Comm comm);

// Empty messages (kFirstPull, kGoodbye, kStop).
MPI_Request post_signal(int to, Tag tag, MPI_Comm comm);
void take_signal(int from, Tag tag, MPI_Comm comm);

// Worker ids (kGoneMembers, kReplyMembers, kMemberGone, kOrphanedUpdate): `ids` must stay
// alive until the request completes.
MPI_Request post_ids(std::span<const int> ids, int to, Tag tag, MPI_Comm comm);
// Receives the ids message `status` describes (from `probe`).
std::vector<int> take_ids(const MPI_Status& status, MPI_Comm comm);

// Doubles (kReplyShares, kUpdateStepTimes, kTimeline): `doubles` must stay alive until the request
// completes.
MPI_Request post_doubles(std::span<const double> doubles, int to, Tag tag, MPI_Comm comm);
// Receives the doubles message `status` describes (from `probe`).
std::vector<double> take_doubles(const MPI_Status& status, MPI_Comm comm);

// Bytes (kShardOrder): `bytes` must stay alive until the request completes.
MPI_Request post_bytes(std::span<const char> bytes, int to, Tag tag, MPI_Comm comm);
// Receives the bytes message `status` describes (from `probe`).
std::vector<char> take_bytes(const MPI_Status& status, MPI_Comm comm);

// Text (kWorkerGone): `text` must stay alive until the request completes.
MPI_Request post_text(const std::string& text, int to, Tag tag, MPI_Comm comm);
// Receives the text message `status` describes (from `probe`).
std::string take_text(const MPI_Status& status, MPI_Comm comm);

}  // namespace hetps::mpi
