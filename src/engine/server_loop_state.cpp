// The server loop's part of a real engine's checkpoint (server_loop.h, "Checkpoints"): taken
// while every worker rests, so nothing of the run is in a message: what the workers were sent
// and what they owe is here, what they computed is in the server state's updates in flight.
#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "checkpoint/checkpoint_error.h"
#include "checkpoint/restoring.h"
#include "checkpoint/saved_integers.h"
#include "checkpoint/state_blob.h"
#include "engine/server_loop.h"
#include "protocol/worker_plan_state.h"

namespace hetps::engine {
namespace {

// Per-worker vectors come back only at the run's worker count.
template <typename Value>
std::vector<Value> per_worker(const nlohmann::json& state, const char* field, int workers) {
  std::vector<Value> values;
  if constexpr (std::same_as<Value, bool>) {
    values = state.at(field).get<std::vector<bool>>();
  } else {
    values = checkpoint::integers<std::vector<Value>>(state.at(field));
  }
  if (values.size() != static_cast<size_t>(workers)) {
    throw checkpoint::CheckpointError(
        fmt::format("{}: holds {} workers, expected {}", field, values.size(), workers));
  }
  return values;
}

void check_worker(int worker, int workers, const char* what) {
  if (worker < 0 || worker >= workers) {
    throw checkpoint::CheckpointError(
        fmt::format("{}: worker {}, expected one from 0 to {}", what, worker, workers - 1));
  }
}

}  // namespace

nlohmann::json ServerLoop::save_state() const {
  nlohmann::json held = nlohmann::json::array();
  std::map<int64_t, nlohmann::json> models;  // each version once: a BSP round's replies share it
  for (const Reply& reply : held_) {
    held.push_back({{"worker", reply.worker},
                    {"plan", reply.plan},
                    {"version", reply.version},
                    {"update_id", reply.update_id},
                    {"lr", reply.lr},
                    {"via", reply.via},
                    {"relays", reply.relays}});
    if (!models.contains(reply.version)) {
      models.emplace(reply.version, checkpoint::floats_blob(*reply.model));
    }
  }
  nlohmann::json held_models = nlohmann::json::array();
  for (auto& [version, blob] : models) held_models.push_back({version, std::move(blob)});
  std::vector<int> hangs_ahead;
  for (const config::WorkerFailure* hang : hangs_ahead_) hangs_ahead.push_back(hang->worker);
  return {{"server", state_.save_state()},
          {"stall_inspector", inspector_.save_state()},
          {"relays", replies_.save_state()},
          {"owed", owed_},
          {"gone", gone_},
          {"silent", silent_},
          {"leader_of", leader_of_},
          {"gathering", gathering_},
          {"hangs_ahead", hangs_ahead},
          {"next_evaluation", next_evaluation_},
          {"held_replies", std::move(held)},
          {"held_models", std::move(held_models)},
          {"replies_counted_as_they_leave", true}};
}

void ServerLoop::restore_state(const nlohmann::json& state) {
  const int workers = config_.cluster.workers;
  checkpoint::restoring("the server loop", [&] {
    state_.restore_state(state.at("server"));
    inspector_.restore_state(state.at("stall_inspector"));
    replies_.restore_state(state.at("relays"));
    owed_ = per_worker<int>(state, "owed", workers);
    gone_ = per_worker<bool>(state, "gone", workers);
    silent_ = per_worker<bool>(state, "silent", workers);
    leader_of_ = per_worker<int>(state, "leader_of", workers);
    gathering_ = per_worker<std::vector<int>>(state, "gathering", workers);
    next_evaluation_ = state.at("next_evaluation").get<double>();
    const auto hangs_ahead = checkpoint::integers<std::vector<int>>(state.at("hangs_ahead"));
    std::erase_if(hangs_ahead_, [&](const config::WorkerFailure* hang) {
      return std::ranges::find(hangs_ahead, hang->worker) == hangs_ahead.end();
    });
    // Every worker rested at the checkpoint: its first pull had come, or it was gone.
    first_pull_seen_.assign(static_cast<size_t>(workers), true);

    const size_t model_floats = state_.server().model().size();
    std::map<int64_t, ModelSnapshot> models;
    for (const nlohmann::json& saved : state.at("held_models")) {
      const auto version = checkpoint::integer<int64_t>(saved.at(0));
      auto model = std::make_shared<std::vector<float>>(model_floats);
      checkpoint::read_floats(saved.at(1), *model, fmt::format("the model of version {}", version));
      models.emplace(version, std::move(model));
    }
    held_.clear();
    for (const nlohmann::json& saved : state.at("held_replies")) {
      Reply reply;
      reply.worker = checkpoint::integer<int>(saved.at("worker"));
      check_worker(reply.worker, workers, "a held reply");
      reply.plan = saved.at("plan").get<protocol::WorkerPlan>();
      reply.version = checkpoint::integer<int64_t>(saved.at("version"));
      const auto model = models.find(reply.version);
      if (model == models.end()) {
        throw checkpoint::CheckpointError(
            fmt::format("worker {}'s held reply: no model of version {} is saved", reply.worker,
                        reply.version));
      }
      reply.model = model->second;
      reply.update_id = checkpoint::integer<int>(saved.at("update_id"));
      if (reply.update_id != owed_[static_cast<size_t>(reply.worker)]) {
        throw checkpoint::CheckpointError(
            fmt::format("worker {}'s held reply is for update {}, but it owes update {}",
                        reply.worker, reply.update_id, owed_[static_cast<size_t>(reply.worker)]));
      }
      try {
        reply.update = state_.pool().buffer(reply.update_id);
      } catch (const std::logic_error&) {
        throw checkpoint::CheckpointError(
            fmt::format("worker {}'s held reply is for update {}, which is not in flight",
                        reply.worker, reply.update_id));
      }
      reply.lr = saved.at("lr").get<double>();
      reply.via = checkpoint::integer<int>(saved.at("via"));
      if (reply.via != protocol::kServer) check_worker(reply.via, workers, "a held reply's relay");
      reply.relays = checkpoint::integer<int>(saved.at("relays"));
      held_.push_back(std::move(reply));
    }
    // Checkpoints of hetps before 2026-12-07 counted a held reply's bytes as it was made, not as
    // it leaves, and may hold replies for a dead leader to hand on.
    const bool counted_when_made = !state.contains("replies_counted_as_they_leave");
    for (Reply& reply : held_) {
      if (counted_when_made) count_bytes(reply, -1);
      if (reply.via != protocol::kServer && gone_[static_cast<size_t>(reply.via)]) {
        reply.via = protocol::kServer;
      }
    }
  });
}

}  // namespace hetps::engine
