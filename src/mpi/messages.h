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
//                    message); kWentSilent (empty: its injected hang began, the engine's own
//                    notice, for checkpoints); kWorkerState (its state for a checkpoint, CBOR
//                    bytes, the answer to a kStateRequest); kAwaitingShard (a shard's index,
//                    one int: the worker's push to that shard rank, or the rank's slice of
//                    its reply, has not gone through within run.stall_warning_s; repeated
//                    every run.stall_warning_s while so; 0 once it went through after all);
//                    kRoundProgress (ProgressHeader: a member's update reached its leader,
//                    or a leader's own is computed and it gathers, for the stall messages).
//   server → worker: kReplyHeader (ReplyHeader) followed by kReplyModel (the model), then for a
//                    leader kReplyMembers (whom it gathers from) and one kRelay (RelayEntry) per
//                    reply it hands on, or for a plan that re-cuts the data kReplyShares (every
//                    worker's share, doubles; never in a leader's community); kMemberGone (a
//                    member's id: do not wait for it); kClock
//                    (RunClock::State: the server's clock stands still for an evaluation, or
//                    runs on after it, run_clock.h); kStateRequest (empty: send your state
//                    for a checkpoint, rank_checkpoints.h); kResumeState (before the start
//                    barrier of a resumed run: its state and the time it resumes at, CBOR
//                    bytes); kStop (empty, the server's last message: the run is over).
//   leader → member: kReplyHeader and kReplyModel, the relayed reply.
//   member → leader: kMemberUpdateHeader (UpdateHeader) followed by kMemberUpdatePayload.
//   worker → worker: kEndOfRun (empty, its last message to every other worker).
//   With several server shards (cluster.servers > 1), rank 0 runs the protocol and holds shard
//   0; ranks 1 … servers−1 hold the others:
//   worker → shard rank: kUpdateHeader and kUpdatePayload, or kSparseIndices and
//                        kSparseValues (its slice of a push); kGoodbye.
//   shard rank → worker: kReplyModel (its slice of a reply, in the order of rank 0's replies),
//                        on RankSetup::slice_comm.
//   rank 0 → shard rank: kShardOrder (wire/shard_orders.h), and after a SaveState order
//                        kHeldUpdates (the ids of the pushed updates rank 0 holds); before the
//                        start barrier of a resumed run, kResumeState.
//   shard rank → rank 0: kShardModel (its slice, for an evaluation); kShardState (its state for
//                        a checkpoint, CBOR bytes).
//   At the start, every rank but 0 ↔ rank 0: kClockProbe (empty), answered with kClockProbe
//   (rank 0's clock, one double; run_clock.h).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "mpi/wire/headers.h"

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
  kWentSilent,
  kStateRequest,
  kWorkerState,
  kResumeState,
  kHeldUpdates,
  kShardState,
  kClockProbe,
  kAwaitingShard,
  kRoundProgress,
};

// MPI counts elements in an int.
int element_count(size_t elements);
// The length of the message `status` announced (a probe's), in bytes.
size_t message_bytes(const MPI_Status& status);

// Starts sending `header`, which must stay where it is until the request completes.
template <typename Header>
MPI_Request post_header(const Header& header, int to, Tag tag, MPI_Comm comm) {
  static_assert(std::is_trivially_copyable_v<Header>);
  MPI_Request request;
  MPI_Isend(&header, static_cast<int>(sizeof(Header)), MPI_BYTE, to, tag, comm, &request);
  return request;
}

// Receives the next message `from` sends with `tag` as bytes, whatever its length (a header,
// for its decoder in wire/headers.h to check), waiting for it.
std::vector<char> take_message(int from, Tag tag, MPI_Comm comm);

MPI_Request post_floats(std::span<const float> floats, int to, Tag tag, MPI_Comm comm);
// Waits until the next message `from` sends with `tag` is announced, throws MessageError naming
// `from` unless it holds exactly `floats.size()` floats (so it never ends short of the buffer's
// end or beyond it), and starts receiving it into `floats`.
MPI_Request post_receive_floats(std::span<float> floats, int from, Tag tag, MPI_Comm comm);

// Empty messages (kFirstPull, kGoodbye, kStop). Taking one waits for it and throws
// MessageError naming `from` when it is not empty.
MPI_Request post_signal(int to, Tag tag, MPI_Comm comm);
void take_signal(int from, Tag tag, MPI_Comm comm);

// Worker ids (kGoneMembers, kReplyMembers, kMemberGone, kOrphanedUpdate): `ids` must stay
// alive until the request completes.
MPI_Request post_ids(std::span<const int> ids, int to, Tag tag, MPI_Comm comm);
// Receives the ids message `status` describes (from `probe`). Like every `take_` below, throws
// MessageError naming the sender when the message is not a whole number of elements; the
// caller checks their count and values.
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
