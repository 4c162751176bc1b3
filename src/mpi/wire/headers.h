// The fixed-size headers the mpi engine's ranks send each other (mpi/messages.h says when), and
// their decoding. A header travels as the bytes of its struct: every rank runs the same hetps
// binary on the same kind of machine. What comes from another rank is not trusted: a decoder
// takes exactly one header's bytes holding values a rank of this run could have sent, or throws
// MessageError naming the sender; MPI-free, so that it is fuzzed (fuzz/) and unit-tested.
//
//   const UpdateHeader header = decode_update_header(bytes, rank, bounds);
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/round_progress.h"
#include "protocol/protocol.h"

namespace hetps::mpi {

// What a receiving rank knows of the run, to judge a message by.
struct MessageBounds {
  int workers = 0;
  size_t model_floats = 0;
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

// Rank 0's clock as it tells the worker ranks (kClock; mpi/run_clock.h).
struct ClockState {
  bool standing = false;      // an evaluation is under way
  double stands_at = 0;       // ... and the time shows this meanwhile
  double paused_seconds = 0;  // the pauses that ended, together
};

// What a worker says of its update in a round with leaders (kRoundProgress;
// engine::ServerLoop::on_round_progress).
struct ProgressHeader {
  engine::RoundProgress progress = engine::RoundProgress::kWithLeader;
  int update_id = 0;
};

// Each throws MessageError naming `sender` unless `bytes` are one header of its kind whose
// values fit the run: known update kinds, counts of workers and entries within `bounds`, worker
// ids of its workers, finite times and rates.
ReplyHeader decode_reply_header(std::span<const char> bytes, int sender,
                                const MessageBounds& bounds);
RelayEntry decode_relay_entry(std::span<const char> bytes, int sender, const MessageBounds& bounds);
UpdateHeader decode_update_header(std::span<const char> bytes, int sender,
                                  const MessageBounds& bounds);
ClockState decode_clock_state(std::span<const char> bytes, int sender);
ProgressHeader decode_progress_header(std::span<const char> bytes, int sender);

// A leader's update's members (kUpdateMembers) and everyone's seconds per step
// (kUpdateStepTimes) as `header` announced them: throws MessageError naming `sender` unless
// there are `header.members` worker ids, ascending, none the sender's own worker, and one finite
// step time more (the leader's, first).
void check_update_members(const UpdateHeader& header, std::span<const int> members,
                          std::span<const double> step_seconds, int sender,
                          const MessageBounds& bounds);

}  // namespace hetps::mpi
