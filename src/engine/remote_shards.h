// Server shards that live in other processes (the mpi engine's shard ranks). The process that
// runs the protocol applies its own shard and tells the others every change it makes to the
// global model, in the order it makes them, so that every shard holds the same version.
#pragma once

#include <cstdint>

#include "protocol/protocol.h"
#include "server/parameter_server.h"

namespace hetps::engine {

class RemoteShards {
 public:
  virtual ~RemoteShards() = default;
  // `order` as the local shard applies it, at the learning rate of `samples_processed`.
  virtual void apply(const protocol::ApplyOrder& order, int64_t samples_processed) = 0;
  // The update `update_id` will never be applied.
  virtual void discard(int update_id) = 0;
  virtual void set_override(const protocol::OptimizerOverride& settings) = 0;
  // Copies the other shards' keys of the current version into `server` (before it is read
  // whole: an evaluation, the final model).
  virtual void fetch_model(server::ParameterServer& server) = 0;
};

}  // namespace hetps::engine
