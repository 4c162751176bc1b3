// The simulator's checkpoints (issue 9): everything that decides what happens next, so that a
// run resumed from a checkpoint writes the same log, bit for bit, as the run that never
// stopped. What the config determines (the cluster model, link speeds, shard sizes) is rebuilt
// by the constructor and not saved.
#include <chrono>

#include <fmt/format.h>

#include "checkpoint/checkpoint_error.h"
#include "checkpoint/restoring.h"
#include "checkpoint/saved_integers.h"
#include "checkpoint/state_blob.h"
#include "engine/sim_engine.h"

namespace hetps::engine {

namespace {

nlohmann::json sparse_to_json(const std::optional<worker::SparseDelta>& sparse) {
  if (!sparse) return nullptr;
  return {{"dense_size", sparse->dense_size},
          {"indices", sparse->indices},
          {"values", checkpoint::floats_blob(sparse->values)}};
}

std::optional<worker::SparseDelta> sparse_from_json(const nlohmann::json& state) {
  if (state.is_null()) return std::nullopt;
  worker::SparseDelta sparse;
  sparse.dense_size = checkpoint::integer<uint64_t>(state.at("dense_size"));
  sparse.indices = checkpoint::integers<std::vector<uint32_t>>(state.at("indices"));
  sparse.values = checkpoint::floats_from_blob(state.at("values"), "a compressed update");
  if (sparse.values.size() != sparse.indices.size()) {
    throw checkpoint::CheckpointError(
        "a compressed update: its indices and values differ in count");
  }
  return sparse;
}

}  // namespace

nlohmann::json SimEngine::WorkerClock::save_state() const {
  return {{"steps", steps},
          {"pushes", pushes},
          {"last_pull_seconds", last_pull_seconds},
          {"model_arrived", model_arrived},
          {"update_in_flight", update_in_flight},
          {"silent", silent},
          {"hung", hung},
          {"leader", leader},
          {"awaited_members", awaited_members},
          {"gathered", gathered},
          {"early_updates", early_updates},
          {"own_update_ready", own_update_ready},
          {"compressed", sparse_to_json(compressed)}};
}

void SimEngine::WorkerClock::restore_state(const nlohmann::json& state) {
  steps = checkpoint::integer<int64_t>(state.at("steps"));
  pushes = checkpoint::integer<int64_t>(state.at("pushes"));
  last_pull_seconds = state.at("last_pull_seconds").get<double>();
  model_arrived = state.at("model_arrived").get<double>();
  update_in_flight = checkpoint::integer<int>(state.at("update_in_flight"));
  silent = state.at("silent").get<bool>();
  hung = state.at("hung").get<bool>();
  leader = checkpoint::integer<int>(state.at("leader"));
  awaited_members = checkpoint::integers<std::vector<int>>(state.at("awaited_members"));
  gathered = checkpoint::integers<std::vector<int>>(state.at("gathered"));
  early_updates = checkpoint::integers<std::vector<int>>(state.at("early_updates"));
  own_update_ready = state.at("own_update_ready").get<bool>();
  compressed = sparse_from_json(state.at("compressed"));
}

nlohmann::json SimEngine::save_state() const {
  nlohmann::json events = nlohmann::json::array();
  for (auto queue = events_; !queue.empty(); queue.pop()) {
    const Event& event = queue.top();
    events.push_back(
        {event.time, event.sequence, static_cast<int>(event.kind), event.worker, event.update_id});
  }
  nlohmann::json clocks = nlohmann::json::array();
  for (const WorkerClock& clock : clocks_) clocks.push_back(clock.save_state());
  nlohmann::json workers = nlohmann::json::array();
  for (const auto& worker : workers_) workers.push_back(worker->save_state());
  const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - wall_start_;
  return {{"engine", "sim"},
          {"wall_seconds", wall.count()},
          {"now", now_},
          {"sequence", sequence_},
          {"updates_in_flight", updates_in_flight_},
          {"next_checkpoint", next_checkpoint_},
          {"events", std::move(events)},
          {"shard_free_at", shard_free_at_},
          {"clocks", std::move(clocks)},
          {"workers", std::move(workers)},
          {"server", state_.save_state()},
          {"network", network_->save_state()},
          {"replies", replies_.save_state()},
          {"stall_inspector", inspector_.save_state()},
          {"timeline", timeline_.save_state()}};
}

void SimEngine::restore_state(const nlohmann::json& state) {
  checkpoint::restoring("the simulator", [&] {
    checkpoint::expect_engine(state, "sim");
    const auto& clocks = state.at("clocks");
    const auto& workers = state.at("workers");
    if (clocks.size() != clocks_.size() || workers.size() != workers_.size()) {
      throw checkpoint::CheckpointError(
          fmt::format("holds {} workers, the run has {}", clocks.size(), clocks_.size()));
    }
    wall_start_ -= std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(state.at("wall_seconds").get<double>()));
    now_ = state.at("now").get<double>();
    sequence_ = checkpoint::integer<uint64_t>(state.at("sequence"));
    updates_in_flight_ = checkpoint::integer<int>(state.at("updates_in_flight"));
    next_checkpoint_ = state.at("next_checkpoint").get<double>();
    events_ = {};
    for (const auto& event : state.at("events")) {
      const auto kind = checkpoint::integer<int>(event.at(2));
      if (kind < 0 || kind > static_cast<int>(EventKind::WorkerFails)) {
        throw checkpoint::CheckpointError(fmt::format("an event of unknown kind {}", kind));
      }
      events_.push(Event{event.at(0).get<double>(), checkpoint::integer<uint64_t>(event.at(1)),
                         static_cast<EventKind>(kind), checkpoint::integer<int>(event.at(3)),
                         checkpoint::integer<int>(event.at(4))});
    }
    shard_free_at_ = state.at("shard_free_at").get<std::vector<double>>();
    if (shard_free_at_.size() != shard_fraction_.size()) {
      throw checkpoint::CheckpointError(fmt::format("holds {} server shards, the run has {}",
                                                    shard_free_at_.size(), shard_fraction_.size()));
    }
    for (size_t w = 0; w < clocks_.size(); ++w) {
      clocks_[w].restore_state(clocks.at(w));
      workers_[w]->restore_state(workers.at(w));
    }
    state_.restore_state(state.at("server"));
    network_->restore_state(state.at("network"));
    replies_.restore_state(state.at("replies"));
    inspector_.restore_state(state.at("stall_inspector"));
    timeline_.restore_state(state.at("timeline"));
  });
}

}  // namespace hetps::engine
