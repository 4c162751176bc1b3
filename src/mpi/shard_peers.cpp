#include "mpi/shard_peers.h"

#include <fmt/format.h>

#include "checkpoint/checkpoint_error.h"
#include "checkpoint/restoring.h"
#include "checkpoint/saved_integers.h"
#include "mpi/patient_wait.h"
#include "mpi/resume_parts.h"
#include "mpi/wire/state_bytes.h"

namespace hetps::mpi {

ShardPeers::ShardPeers(MPI_Comm comm, const RankLayout& layout,
                       std::vector<params::KeyRange> slices, double patience)
    : comm_(comm), layout_(layout), slices_(std::move(slices)), patience_(patience) {}

ShardPeers::~ShardPeers() {
  complete_sends();
  if (!in_flight_.empty()) new std::list<OrderInFlight>(std::move(in_flight_));  // never freed
}

void ShardPeers::post(const ShardOrder& order) {
  complete_sends();
  OrderInFlight& sent = in_flight_.emplace_back();
  sent.bytes = encode(order);
  for (int shard = 1; shard < layout_.servers(); ++shard) {
    sent.requests.push_back(post_bytes(sent.bytes, layout_.shard_rank(shard), kShardOrder, comm_));
  }
}

void ShardPeers::complete_sends() {
  for (auto it = in_flight_.begin(); it != in_flight_.end();) {
    int done = 0;
    MPI_Testall(static_cast<int>(it->requests.size()), it->requests.data(), &done,
                MPI_STATUSES_IGNORE);
    it = done ? in_flight_.erase(it) : std::next(it);
  }
}

void ShardPeers::apply(const protocol::ApplyOrder& order, int64_t samples_processed) {
  for (int id : order.update_ids) pushed_.erase(id);
  ShardOrder apply{ShardOrder::Kind::Apply};
  apply.apply = order;
  apply.samples_processed = samples_processed;
  post(apply);
}

void ShardPeers::discard(int update_id) {
  if (pushed_.erase(update_id) == 0) return;
  ShardOrder discard{ShardOrder::Kind::Discard};
  discard.update_id = update_id;
  post(discard);
}

void ShardPeers::set_override(const protocol::OptimizerOverride& settings) {
  ShardOrder change{ShardOrder::Kind::Override};
  change.settings = settings;
  post(change);
}

void ShardPeers::reply(int worker, int64_t version) {
  ShardOrder reply{ShardOrder::Kind::Reply};
  reply.worker = worker;
  reply.version = version;
  post(reply);
}

void ShardPeers::keep(int64_t version) {
  if (version == kept_version_) return;
  kept_version_ = version;
  ShardOrder keep{ShardOrder::Kind::Keep};
  keep.version = version;
  post(keep);
}

void ShardPeers::fetch_model(server::ParameterServer& server) {
  ShardOrder send{ShardOrder::Kind::SendModel};
  send.version = server.version();
  post(send);
  for (int shard = 1; shard < layout_.servers(); ++shard) {
    const params::KeyRange& keys = slices_[static_cast<size_t>(shard)];
    fetched_.resize(keys.size());
    const auto what = [&] {
      return fmt::format("{}'s slice of version {} (for an evaluation)",
                         layout_.describe_shard(shard), server.version());
    };
    // Announced first, with patience: post_receive_floats waits for that without it.
    wait_for_message(comm_, layout_.shard_rank(shard), kShardModel, patience_, what);
    MPI_Request request =
        post_receive_floats(fetched_, layout_.shard_rank(shard), kShardModel, comm_);
    wait_for(request, patience_, what);
    server.load_keys(keys, fetched_);
  }
}

void ShardPeers::stop() {
  if (stopped_) return;
  stopped_ = true;
  post(ShardOrder{ShardOrder::Kind::Stop});
  for (OrderInFlight& sent : in_flight_) wait_for_all(sent.requests);
  in_flight_.clear();
}

nlohmann::json ShardPeers::save_state() {
  post(ShardOrder{ShardOrder::Kind::SaveState});
  const std::vector<int> held(pushed_.begin(), pushed_.end());
  std::vector<MPI_Request> requests;
  for (int shard = 1; shard < layout_.servers(); ++shard) {
    requests.push_back(post_ids(held, layout_.shard_rank(shard), kHeldUpdates, comm_));
  }
  nlohmann::json ranks = nlohmann::json::array();
  for (int shard = 1; shard < layout_.servers(); ++shard) {
    const int rank = layout_.shard_rank(shard);
    const MPI_Status message = wait_for_message(comm_, rank, kShardState, patience_, [&] {
      return fmt::format("the state of server shard rank {} for a checkpoint", rank);
    });
    ranks.push_back(decode_state(take_bytes(message, comm_), rank));
  }
  wait_for_all(requests);
  return {{"pushed", held}, {"ranks", std::move(ranks)}};
}

void ShardPeers::restore_state(const nlohmann::json& state, double time) {
  checkpoint::restoring("the other server shards", [&] {
    const nlohmann::json& ranks = state.at("ranks");
    if (!ranks.is_array() || ranks.size() != static_cast<size_t>(layout_.servers() - 1)) {
      throw checkpoint::CheckpointError(
          fmt::format("holds {} shard ranks, the run has {}", ranks.size(), layout_.servers() - 1));
    }
    const auto held = checkpoint::integers<std::vector<int>>(state.at("pushed"));
    pushed_ = {held.begin(), held.end()};
    std::vector<int> shard_ranks;
    for (int shard = 1; shard < layout_.servers(); ++shard) {
      shard_ranks.push_back(layout_.shard_rank(shard));
    }
    send_resume_parts(comm_, shard_ranks, ranks, time);
  });
}

}  // namespace hetps::mpi
