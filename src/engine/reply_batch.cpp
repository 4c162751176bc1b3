#include "engine/reply_batch.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "checkpoint/restoring.h"
#include "checkpoint/saved_integers.h"

namespace hetps::engine {

ReplyBatch::ReplyBatch(int workers) : merged_by_(static_cast<size_t>(workers), protocol::kServer) {}

void ReplyBatch::merged(int leader, const std::vector<int>& members) {
  for (int member : members) merged_by_[static_cast<size_t>(member)] = leader;
}

void ReplyBatch::add(int worker, protocol::WorkerPlan plan) {
  pending_.push_back(Route{worker, std::move(plan), protocol::kServer});
}

std::vector<ReplyBatch::Route> ReplyBatch::take() {
  const auto answered = [&](int worker) {
    return std::ranges::any_of(pending_,
                               [&](const Route& route) { return route.worker == worker; });
  };
  // A leader hands on plain replies only: one that makes its receiver a leader in turn carries
  // that leader's members, one with data shares carries them (on mpi only the server sends
  // them), and a leader relayed itself has nothing to hand on yet.
  for (Route& route : pending_) {
    const int leader = merged_by_[static_cast<size_t>(route.worker)];
    if (leader != protocol::kServer && route.plan.gather_from.empty() &&
        route.plan.data_shares.empty() && answered(leader)) {
      route.via = leader;
    }
  }
  const auto relayed_itself = [&](int worker) {
    return std::ranges::any_of(pending_, [&](const Route& route) {
      return route.worker == worker && route.via != protocol::kServer;
    });
  };
  std::vector<int> through_relayed;
  for (const Route& route : pending_) {
    if (route.via != protocol::kServer && relayed_itself(route.via)) {
      through_relayed.push_back(route.worker);
    }
  }
  for (Route& route : pending_) {
    if (std::ranges::find(through_relayed, route.worker) != through_relayed.end()) {
      route.via = protocol::kServer;
    }
  }
  std::vector<Route> direct;
  std::vector<Route> relayed;
  for (Route& route : pending_) {
    // A later reply comes from the server unless the worker's update is merged again.
    merged_by_[static_cast<size_t>(route.worker)] = protocol::kServer;
    (route.via == protocol::kServer ? direct : relayed).push_back(std::move(route));
  }
  pending_.clear();
  direct.insert(direct.end(), std::make_move_iterator(relayed.begin()),
                std::make_move_iterator(relayed.end()));
  return direct;
}

nlohmann::json ReplyBatch::save_state() const {
  if (!pending_.empty()) {
    throw std::logic_error("ReplyBatch::save_state: replies are pending; save between messages");
  }
  return {{"merged_by", merged_by_}};
}

void ReplyBatch::restore_state(const nlohmann::json& state) {
  checkpoint::restoring("the pull replies' relays", [&] {
    auto merged_by = checkpoint::integers<std::vector<int>>(state.at("merged_by"));
    const auto workers = static_cast<int>(merged_by_.size());
    if (merged_by.size() != merged_by_.size()) {
      throw checkpoint::CheckpointError(
          fmt::format("holds {} workers, expected {}", merged_by.size(), workers));
    }
    for (size_t w = 0; w < merged_by.size(); ++w) {
      const int leader = merged_by[w];
      if (leader != protocol::kServer && (leader < 0 || leader >= workers)) {
        throw checkpoint::CheckpointError(fmt::format(
            "worker {}'s update was merged by worker {}; expected -1 (none) or a worker from 0 "
            "to {}",
            w, leader, workers - 1));
      }
    }
    merged_by_ = std::move(merged_by);
  });
}

}  // namespace hetps::engine
