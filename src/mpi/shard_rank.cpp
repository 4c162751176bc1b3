#include "mpi/shard_rank.h"

#include <list>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "checkpoint/restoring.h"
#include "checkpoint/saved_integers.h"
#include "checkpoint/state_blob.h"
#include "engine/model_snapshots.h"
#include "engine/server_state.h"
#include "mpi/messages.h"
#include "mpi/patient_wait.h"
#include "mpi/rank_checkpoints.h"
#include "mpi/run_clock.h"
#include "mpi/sparse_wire.h"
#include "mpi/wire/message_error.h"
#include "mpi/wire/shard_orders.h"
#include "mpi/wire/state_bytes.h"
#include "server/parameter_server.h"

namespace hetps::mpi {
namespace {

class ShardServer {
 public:
  ShardServer(const RankSetup& setup, server::ParameterServer& server, int shard)
      : patience_(setup.config.run.stall_timeout_s),
        comm_(setup.comm),
        slice_comm_(setup.slice_comm),
        layout_(setup.layout),
        server_(server),
        keys_(server.shard_ranges()[static_cast<size_t>(shard)]),
        bounds_{setup.layout.workers(), server.model().size()} {}

  ~ShardServer() {
    if (!in_flight_.empty()) new std::list<SliceInFlight>(std::move(in_flight_));  // never freed
  }

  void serve() {
    Backoff backoff;
    while (!stopped_ || goodbyes_ < layout_.workers()) {
      complete_sends();
      if (const auto message = probe(comm_, MPI_ANY_SOURCE, MPI_ANY_TAG)) {
        take(*message);
        backoff = {};
      } else {
        backoff.pause();
      }
    }
    for (SliceInFlight& sent : in_flight_) wait_for(sent.request);
    in_flight_.clear();
  }

  // A resumed run, in place of the state the constructor built: `state` as send_state sent it.
  void restore(const nlohmann::json& state) {
    checkpoint::restoring(fmt::format("server shard rank {}", layout_.rank()), [&] {
      server_.restore_state(state.at("server"));
      for (const nlohmann::json& update : state.at("updates")) {
        std::vector<float> buffer = spare_buffer();
        checkpoint::read_floats(update.at("slice"),
                                std::span(buffer).subspan(keys_.begin, keys_.size()),
                                "an update's slice");
        updates_[checkpoint::integer<int>(update.at("id"))] = std::move(buffer);
      }
      for (const nlohmann::json& kept : state.at("kept")) {
        auto slice = std::make_shared<std::vector<float>>(keys_.size());
        checkpoint::read_floats(kept.at("slice"), *slice, "a kept slice");
        kept_[checkpoint::integer<int64_t>(kept.at("version"))] = std::move(slice);
      }
    });
  }

 private:
  struct SliceInFlight {
    engine::ModelSnapshot slice;
    MPI_Request request;
  };

  void take(const MPI_Status& message) {
    const int rank = message.MPI_SOURCE;
    switch (message.MPI_TAG) {
      case kUpdateHeader:
        take_update(rank);
        return;
      case kGoodbye:
        take_signal(rank, kGoodbye, comm_);
        ++goodbyes_;
        return;
      case kShardOrder:
        if (rank == layout_.server_rank()) {
          carry_out(decode_shard_order(take_bytes(message, comm_), rank, bounds_));
          return;
        }
        break;
      default:
        break;
    }
    throw MessageError(rank, fmt::format("message tag {} to server shard rank {}", message.MPI_TAG,
                                         layout_.rank()));
  }

  // A worker's slice of a push, into a whole-model buffer (the optimizer reads updates by key);
  // a compressed one's kept entries, with zeros at the range's other keys.
  void take_update(int rank) {
    layout_.worker_sending(rank, kUpdateHeader);
    const UpdateHeader header =
        decode_update_header(take_message(rank, kUpdateHeader, comm_), rank, bounds_);
    std::vector<float>& buffer = updates_[header.id];
    if (buffer.empty()) buffer = spare_buffer();
    if (header.compressed()) {
      engine::expand_into(sparse_.take(rank, keys_, comm_), keys_, buffer);
    } else {
      MPI_Request request = post_receive_floats(
          std::span(buffer).subspan(keys_.begin, keys_.size()), rank, kUpdatePayload, comm_);
      wait_for(request);
    }
    if (discarded_.erase(header.id) > 0) release(header.id);
  }

  std::vector<float> spare_buffer() {
    if (spare_.empty()) return std::vector<float>(server_.model().size());
    std::vector<float> buffer = std::move(spare_.back());
    spare_.pop_back();
    return buffer;
  }

  void release(int id) {
    spare_.push_back(std::move(updates_.at(id)));
    updates_.erase(id);
  }

  void carry_out(const ShardOrder& order) {
    switch (order.kind) {
      case ShardOrder::Kind::Apply:
        return apply(order);
      case ShardOrder::Kind::Discard:
        if (updates_.count(order.update_id) > 0) {
          release(order.update_id);
        } else {
          discarded_.insert(order.update_id);  // its slice is on its way
        }
        return;
      case ShardOrder::Kind::Override:
        server_.set_override(order.settings);
        return;
      case ShardOrder::Kind::Reply:
        send_slice(order.version, layout_.worker_rank(order.worker), kReplyModel, slice_comm_);
        // Replies leave in the order rank 0 made them, of versions that never go back: none of
        // an older kept version is still to come. (An evaluation's slice says nothing of them.)
        kept_.erase(kept_.begin(), kept_.lower_bound(order.version));
        return;
      case ShardOrder::Kind::SendModel:
        return send_slice(order.version, layout_.server_rank(), kShardModel, comm_);
      case ShardOrder::Kind::Stop:
        stopped_ = true;
        return;
      case ShardOrder::Kind::SaveState:
        return send_state();
      case ShardOrder::Kind::Keep:
        check_version(order.version);
        kept_.try_emplace(order.version, snapshot());
        return;
    }
    throw std::logic_error(
        fmt::format("rank 0 sent an unknown shard order ({})", static_cast<int>(order.kind)));
  }

  void apply(const ShardOrder& order) {
    std::vector<const float*> payloads;
    for (int id : order.apply.update_ids) {
      // Rank 0 took the update, so its slice here is sent or on its way.
      while (updates_.count(id) == 0) take_next_update(id);
      payloads.push_back(updates_.at(id).data());
    }
    server_.apply(order.apply, payloads, order.samples_processed);
    for (int id : order.apply.update_ids) release(id);
  }

  // A checkpoint's part (rank_checkpoints.h): once this rank holds the slice of every update
  // rank 0 holds (kHeldUpdates) and of every one discarded before its slice came, so that no
  // slice is left on its way to a process that will not be there on resume, it sends its
  // parameter server's state and those slices.
  void send_state() {
    const int server = layout_.server_rank();
    const std::vector<int> held = take_ids(
        wait_for_message(comm_, server, kHeldUpdates, patience_,
                         [] { return std::string("the updates rank 0 holds, for a checkpoint"); }),
        comm_);
    for (int id : held) {
      if (id < 0) throw MessageError(server, fmt::format("update id {} held for a checkpoint", id));
      while (updates_.count(id) == 0) take_next_update(id);
    }
    while (!discarded_.empty()) take_next_update(*discarded_.begin());
    nlohmann::json updates = nlohmann::json::array();
    for (const auto& [id, buffer] : updates_) {
      updates.push_back({{"id", id},
                         {"slice", checkpoint::floats_blob(
                                       std::span(buffer).subspan(keys_.begin, keys_.size()))}});
    }
    nlohmann::json kept = nlohmann::json::array();
    for (const auto& [version, slice] : kept_) {
      kept.push_back({{"version", version}, {"slice", checkpoint::floats_blob(*slice)}});
    }
    const std::vector<char> state = encode_state({{"server", server_.save_state()},
                                                  {"updates", std::move(updates)},
                                                  {"kept", std::move(kept)}});
    MPI_Request request = post_bytes(state, server, kShardState, comm_);
    wait_for(request);
  }

  // Takes the next update slice any worker sends, while waiting for update `id`'s.
  void take_next_update(int id) {
    const auto what = [&] {
      return fmt::format("the slice of update {} at server shard rank {}", id, layout_.rank());
    };
    take_update(wait_for_message(comm_, MPI_ANY_SOURCE, kUpdateHeader, patience_, what).MPI_SOURCE);
  }

  void check_version(int64_t version) const {
    if (version != server_.version()) {
      throw std::logic_error(
          fmt::format("server shard rank {} is at version {}, but rank 0 sends version {}",
                      layout_.rank(), server_.version(), version));
    }
  }

  engine::ModelSnapshot snapshot() {
    return snapshots_.at(server_.model().subspan(keys_.begin, keys_.size()), server_.version());
  }

  // The slice of `version`: the current one, or one kept for a reply held back.
  void send_slice(int64_t version, int to, Tag tag, MPI_Comm comm) {
    SliceInFlight& sent = in_flight_.emplace_back();
    if (const auto kept = kept_.find(version); kept != kept_.end()) {
      sent.slice = kept->second;
    } else {
      check_version(version);
      sent.slice = snapshot();
    }
    sent.request = post_floats(*sent.slice, to, tag, comm);
  }

  void complete_sends() {
    for (auto it = in_flight_.begin(); it != in_flight_.end();) {
      int done = 0;
      MPI_Test(&it->request, &done, MPI_STATUS_IGNORE);
      it = done ? in_flight_.erase(it) : std::next(it);
    }
  }

  double patience_;  // run.stall_timeout_s
  MPI_Comm comm_;
  MPI_Comm slice_comm_;
  const RankLayout& layout_;
  server::ParameterServer& server_;
  params::KeyRange keys_;
  MessageBounds bounds_;
  std::map<int, std::vector<float>> updates_;  // by update id
  std::vector<std::vector<float>> spare_;
  std::set<int> discarded_;  // discarded before their slice came
  SparseSliceReceiver sparse_;
  engine::ModelSnapshots snapshots_;
  std::map<int64_t, engine::ModelSnapshot> kept_;  // by version, for replies held back
  std::list<SliceInFlight> in_flight_;
  int goodbyes_ = 0;
  bool stopped_ = false;
};

}  // namespace

void run_shard_rank(const RankSetup& setup) {
  auto learner = setup.models.make_learner();
  std::vector<float> initial(learner->layout().size());
  learner->initial_parameters(initial);
  server::ServerOptions options = engine::server_options(setup.config);
  options.only_shard = setup.layout.rank();
  server::ParameterServer server(learner->layout(), std::move(initial), options);
  ShardServer shard(setup, server, setup.layout.rank());
  RunClock clock;
  start_rank(setup, clock, [&shard](const nlohmann::json& state) { shard.restore(state); });
  shard.serve();
}

}  // namespace hetps::mpi
