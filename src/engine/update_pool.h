// Buffers for updates in flight: a worker writes its gradient or delta into one, the protocol
// refers to it by id until the server applies or discards it. Buffers are reused, so the
// steady state allocates no model-sized memory.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/protocol.h"

namespace hetps::engine {

struct PendingUpdate {
  protocol::UpdateInfo info;
  size_t buffer = 0;
};

class UpdatePool {
 public:
  explicit UpdatePool(size_t floats) : floats_(floats) {}

  // A fresh id and a buffer for it (contents unspecified).
  int acquire() {
    size_t buffer;
    if (free_.empty()) {
      buffer = buffers_.size();
      buffers_.emplace_back(floats_);
    } else {
      buffer = free_.back();
      free_.pop_back();
    }
    int id = next_id_++;
    pending_[id] = PendingUpdate{{}, buffer};
    return id;
  }

  PendingUpdate& at(int id) {
    auto it = pending_.find(id);
    if (it == pending_.end()) throw std::logic_error("unknown update id " + std::to_string(id));
    return it->second;
  }
  std::span<float> buffer(int id) { return buffers_[at(id).buffer]; }

  void release(int id) {
    free_.push_back(at(id).buffer);
    pending_.erase(id);
  }

  // Every pending update (its id, info and buffer) and the next id, for checkpoints. Which
  // buffer holds which update is not kept: a restored pool holds one buffer per pending update.
  nlohmann::json save_state() const;
  // Into a pool of the same model size. Throws checkpoint::CheckpointError naming the update
  // whose buffer holds another count of floats, an id given twice or at or past the next id, or
  // a field missing; the pool is then unchanged.
  void restore_state(const nlohmann::json& state);

 private:
  size_t floats_;
  std::vector<std::vector<float>> buffers_;
  std::vector<size_t> free_;
  std::map<int, PendingUpdate> pending_;
  int next_id_ = 0;
};

}  // namespace hetps::engine
