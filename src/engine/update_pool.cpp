#include "engine/update_pool.h"

#include <fmt/format.h>

#include "checkpoint/restoring.h"
#include "checkpoint/saved_integers.h"
#include "checkpoint/state_blob.h"
#include "protocol/update_info_state.h"

namespace hetps::engine {

nlohmann::json UpdatePool::save_state() const {
  nlohmann::json pending = nlohmann::json::array();
  for (const auto& [id, update] : pending_) {
    pending.push_back({{"id", id},
                       {"info", update.info},
                       {"buffer", checkpoint::floats_blob(buffers_[update.buffer])}});
  }
  return {{"next_id", next_id_}, {"pending", pending}};
}

void UpdatePool::restore_state(const nlohmann::json& state) {
  checkpoint::restoring("the updates in flight", [&] {
    const int next_id = checkpoint::integer<int>(state.at("next_id"));
    std::vector<std::vector<float>> buffers;
    std::map<int, PendingUpdate> pending;
    for (const nlohmann::json& saved : state.at("pending")) {
      const int id = checkpoint::integer<int>(saved.at("id"));
      if (id < 0 || id >= next_id) {
        throw checkpoint::CheckpointError(
            fmt::format("update {}: expected an id from 0 to {} (the next id {} not given yet)", id,
                        next_id - 1, next_id));
      }
      const std::string what = fmt::format("update {}'s buffer", id);
      std::vector<float>& buffer = buffers.emplace_back(floats_);
      checkpoint::read_floats(saved.at("buffer"), buffer, what);
      const bool added =
          pending
              .emplace(id, PendingUpdate{saved.at("info").get<protocol::UpdateInfo>(),
                                         buffers.size() - 1})
              .second;
      if (!added) throw checkpoint::CheckpointError(fmt::format("update {} is given twice", id));
    }
    buffers_ = std::move(buffers);
    free_.clear();
    pending_ = std::move(pending);
    next_id_ = next_id;
  });
}

}  // namespace hetps::engine
