// What the server rank that runs the protocol (rank 0, which holds shard 0) tells the other
// shard ranks, in the order it happens there (engine::RemoteShards): apply an order, forget a
// pushed update, change the optimizer, send a worker its slice of the model, send rank 0 the
// slice for an evaluation, stop, send its state for a checkpoint. One kShardOrder message each: a
// fixed header, then the order's update ids and weights.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "mpi/wire/headers.h"
#include "protocol/protocol.h"

namespace hetps::mpi {

struct ShardOrder {
  // SaveState: send rank 0 this shard's state for a checkpoint (mpi/rank_checkpoints.h), once
  // it holds the slices of the updates rank 0 holds, whose ids follow as kHeldUpdates.
  // Keep: keep a copy of the slice of `version`, the current one: rank 0 holds back a reply of
  // it for a checkpoint, which leaves (a Reply order) after later applies.
  enum class Kind : int { Apply, Discard, Override, Reply, SendModel, Stop, SaveState, Keep };
  explicit ShardOrder(Kind kind = Kind::Stop) : kind(kind) {}

  Kind kind;
  // Apply: the order (update_ids, weights) at the learning rate of `samples_processed`.
  protocol::ApplyOrder apply;
  int64_t samples_processed = 0;
  int update_id = 0;                     // Discard
  protocol::OptimizerOverride settings;  // Override
  int worker = 0;                        // Reply: to whom
  int64_t version = 0;                   // Reply, SendModel, Keep: the version the slice must be of
};

std::vector<char> encode(const ShardOrder& order);
// Throws MessageError naming `sender` when `bytes` are not an encoded order of this run: a
// known kind, as many weights as update ids (at least one to apply), a worker of `bounds`,
// finite weights and optimizer settings, no negative count or version.
ShardOrder decode_shard_order(std::span<const char> bytes, int sender, const MessageBounds& bounds);

}  // namespace hetps::mpi
