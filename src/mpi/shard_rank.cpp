#include "mpi/shard_rank.h"

#include <list>
#include <map>
#include <set>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "engine/model_snapshots.h"
#include "engine/server_state.h"
#include "mpi/messages.h"
#include "mpi/patient_wait.h"
#include "mpi/run_clock.h"
#include "mpi/sparse_wire.h"
#include "mpi/wire/message_error.h"
#include "mpi/wire/shard_orders.h"
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
        return send_slice(order.version, layout_.worker_rank(order.worker), kReplyModel,
                          slice_comm_);
      case ShardOrder::Kind::SendModel:
        return send_slice(order.version, layout_.server_rank(), kShardModel, comm_);
      case ShardOrder::Kind::Stop:
        stopped_ = true;
        return;
    }
    throw std::logic_error(
        fmt::format("rank 0 sent an unknown shard order ({})", static_cast<int>(order.kind)));
  }

  void apply(const ShardOrder& order) {
    std::vector<const float*> payloads;
    for (int id : order.apply.update_ids) {
      // Rank 0 took the update, so its slice here is sent or on its way.
      while (updates_.count(id) == 0) {
        const auto what = [&] {
          return fmt::format("the slice of update {} at server shard rank {}", id, layout_.rank());
        };
        take_update(
            wait_for_message(comm_, MPI_ANY_SOURCE, kUpdateHeader, patience_, what).MPI_SOURCE);
      }
      payloads.push_back(updates_.at(id).data());
    }
    server_.apply(order.apply, payloads, order.samples_processed);
    for (int id : order.apply.update_ids) release(id);
  }

  void send_slice(int64_t version, int to, Tag tag, MPI_Comm comm) {
    if (version != server_.version()) {
      throw std::logic_error(
          fmt::format("server shard rank {} is at version {}, but rank 0 sends version {}",
                      layout_.rank(), server_.version(), version));
    }
    SliceInFlight& sent = in_flight_.emplace_back();
    sent.slice = snapshots_.at(server_.model().subspan(keys_.begin, keys_.size()), version);
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
  clock.start(setup.comm, Patience::before_training(setup.config.run));
  shard.serve();
}

}  // namespace hetps::mpi
