#include "mpi/server_endpoint.h"

#include <set>

#include <fmt/format.h>

#include "mpi/patient_wait.h"
#include "mpi/resume_parts.h"
#include "mpi/wire/message_checks.h"
#include "mpi/wire/message_error.h"
#include "mpi/wire/state_bytes.h"

namespace hetps::mpi {

ServerEndpoint::ServerEndpoint(MPI_Comm comm, const RankLayout& layout, params::KeyRange own_keys,
                               size_t model_floats, ShardPeers* peers, RunClock& clock)
    : comm_(comm),
      layout_(layout),
      own_keys_(own_keys),
      bounds_{layout.workers(), model_floats},
      peers_(peers),
      clock_(clock),
      dropped_(own_keys.size()) {}

ServerEndpoint::~ServerEndpoint() {
  complete_sends();
  if (!in_flight_.empty()) new std::list<SendInFlight>(std::move(in_flight_));  // never freed
}

void ServerEndpoint::send(engine::ServerLoop::Reply reply) {
  const protocol::WorkerPlan& plan = reply.plan;
  SendInFlight& sent = in_flight_.emplace_back();
  sent.header = {plan.kind,
                 plan.max_local_steps,
                 plan.change_threshold,
                 plan.keep_ratio,
                 plan.error_feedback ? 1 : 0,
                 plan.send_to,
                 static_cast<int>(plan.gather_from.size()),
                 reply.relays,
                 static_cast<int>(plan.data_shares.size()),
                 reply.version,
                 reply.update_id,
                 reply.lr};
  if (reply.via != protocol::kServer) {
    sent.relay = {reply.worker, sent.header};
    sent.requests = {post_header(sent.relay, layout_.worker_rank(reply.via), kRelay, comm_)};
    return;
  }
  sent.model = std::move(reply.model);
  sent.ids = plan.gather_from;
  const int rank = layout_.worker_rank(reply.worker);
  sent.requests = {post_header(sent.header, rank, kReplyHeader, comm_),
                   post_floats(own_part(std::span(*sent.model)), rank, kReplyModel, comm_)};
  if (!sent.ids.empty()) sent.requests.push_back(post_ids(sent.ids, rank, kReplyMembers, comm_));
  sent.shares = plan.data_shares;
  if (!sent.shares.empty()) {
    sent.requests.push_back(post_doubles(sent.shares, rank, kReplyShares, comm_));
  }
  if (peers_ != nullptr) peers_->reply(reply.worker, reply.version);
}

void ServerEndpoint::tell_member_gone(int leader, int member) {
  SendInFlight& sent = in_flight_.emplace_back();
  sent.ids = {member};
  sent.requests = {post_ids(sent.ids, layout_.worker_rank(leader), kMemberGone, comm_)};
}

// A dead leader's rank hands back what reaches it (kOrphanedUpdate): nothing is left here.
std::vector<int> ServerEndpoint::close_leader(int) { return {}; }

void ServerEndpoint::complete_sends() {
  for (auto it = in_flight_.begin(); it != in_flight_.end();) {
    int done = 0;
    MPI_Testall(static_cast<int>(it->requests.size()), it->requests.data(), &done,
                MPI_STATUSES_IGNORE);
    it = done ? in_flight_.erase(it) : std::next(it);
  }
}

void ServerEndpoint::serve_one(double deadline, engine::ServerLoop& server) {
  Backoff backoff;
  for (;;) {
    complete_sends();
    if (const auto message = probe(comm_, MPI_ANY_SOURCE, MPI_ANY_TAG)) {
      take(*message, server);
      return;
    }
    const double left = deadline - clock_.now();
    if (left <= 0) return;
    backoff.pause(left);
  }
}

void ServerEndpoint::evaluate(engine::ServerState& state, double time) {
  with_clock_standing([&] { state.evaluate(time); });
}

nlohmann::json ServerEndpoint::gather_worker_states(double patience) {
  std::vector<MPI_Request> requests;
  for (int w = 0; w < layout_.workers(); ++w) {
    requests.push_back(post_signal(layout_.worker_rank(w), kStateRequest, comm_));
  }
  nlohmann::json states = nlohmann::json::array();
  for (int w = 0; w < layout_.workers(); ++w) {
    const int rank = layout_.worker_rank(w);
    const MPI_Status message = wait_for_message(comm_, rank, kWorkerState, patience, [&] {
      return fmt::format("the state of {} for a checkpoint", layout_.describe_worker(w));
    });
    states.push_back(decode_state(take_bytes(message, comm_), rank));
  }
  wait_for_all(requests);
  return states;
}

void ServerEndpoint::send_resume_states(const nlohmann::json& worker_states, double time) {
  std::vector<int> ranks;
  for (int w = 0; w < layout_.workers(); ++w) ranks.push_back(layout_.worker_rank(w));
  send_resume_parts(comm_, ranks, worker_states, time);
}

void ServerEndpoint::tell_workers_the_clock() {
  SendInFlight& sent = in_flight_.emplace_back();
  sent.clock = clock_.state();
  for (int w = 0; w < layout_.workers(); ++w) {
    sent.requests.push_back(post_header(sent.clock, layout_.worker_rank(w), kClock, comm_));
  }
}

protocol::UpdateInfo ServerEndpoint::take_update_info(int rank, const UpdateHeader& header) {
  std::vector<int> members;
  std::vector<double> step_seconds;
  if (header.members > 0) {
    members = take_ids(wait_for_message(comm_, rank, kUpdateMembers), comm_);
    step_seconds = take_doubles(wait_for_message(comm_, rank, kUpdateStepTimes), comm_);
    check_update_members(header, members, step_seconds, rank, bounds_);
  }
  return header.info(std::move(members), std::move(step_seconds));
}

void ServerEndpoint::take(const MPI_Status& message, engine::ServerLoop& server) {
  const int rank = message.MPI_SOURCE;
  const int worker = layout_.worker_sending(rank, message.MPI_TAG);
  switch (message.MPI_TAG) {
    case kFirstPull:
      take_signal(rank, kFirstPull, comm_);
      server.on_first_pull(worker);
      return;
    case kUpdateHeader: {
      const UpdateHeader header =
          decode_update_header(take_message(rank, kUpdateHeader, comm_), rank, bounds_);
      const protocol::UpdateInfo info = take_update_info(rank, header);
      if (info.worker != worker || info.id != server.owed_update(worker)) {
        throw MessageError(rank,
                           fmt::format("an update of worker {} with id {}; expected worker "
                                       "{}'s update {}",
                                       info.worker, info.id, worker, server.owed_update(worker)));
      }
      const std::span<float> buffer = server.state().pool().buffer(info.id);
      if (header.compressed()) {
        engine::expand_into(sparse_.take(rank, own_keys_, comm_), own_keys_, buffer);
      } else {
        MPI_Request request = post_receive_floats(own_part(buffer), rank, kUpdatePayload, comm_);
        wait_for(request);
      }
      if (peers_ != nullptr) peers_->pushed(info.id);
      server.on_update(info, header.pushed_bytes(server.state().model_bytes()));
      return;
    }
    case kWorkerGone: {
      const std::string error = take_text(message, comm_);
      const std::vector<int> stranded =
          take_ids(wait_for_message(comm_, rank, kGoneMembers), comm_);
      check_worker_ids(stranded, layout_.workers(), rank, "the members a failed leader held");
      server.on_worker_gone(worker, error, stranded);
      return;
    }
    case kOrphanedUpdate: {
      const std::vector<int> member = take_ids(message, comm_);
      check_length(member.size(), 1, rank, "an orphaned update's member");
      check_worker_ids(member, layout_.workers(), rank, "an orphaned update's member");
      server.on_orphaned_update(member.front());
      return;
    }
    case kWentSilent:
      take_signal(rank, kWentSilent, comm_);
      server.on_worker_silent(worker);
      return;
    case kRoundProgress: {
      const ProgressHeader header =
          decode_progress_header(take_message(rank, kRoundProgress, comm_), rank);
      server.on_round_progress(worker, header.progress, header.update_id);
      return;
    }
    case kAwaitingShard: {
      const std::vector<int> shard = take_ids(message, comm_);
      check_length(shard.size(), 1, rank, "an awaited shard");
      if (shard.front() < 0 || shard.front() >= layout_.servers()) {
        throw MessageError(rank, fmt::format("an awaited shard {}; expected one in [0, {})",
                                             shard.front(), layout_.servers()));
      }
      server.on_worker_held_up(
          worker, shard.front() == 0
                      ? ""
                      : fmt::format("{}, which does not answer (a push to it, or its slice of a "
                                    "reply, has not gone through)",
                                    layout_.describe_shard(shard.front())));
      return;
    }
    default:
      throw MessageError(rank, fmt::format("message tag {} during the run", message.MPI_TAG));
  }
}

std::vector<int> ServerEndpoint::stop_workers(double patience) {
  if (stopped_) return {};
  stopped_ = true;
  std::vector<MPI_Request> stops;
  std::set<int> waiting;
  for (int w = 0; w < layout_.workers(); ++w) {
    stops.push_back(post_signal(layout_.worker_rank(w), kStop, comm_));
    waiting.insert(w);
  }
  const double give_up = clock_.now() + patience;
  Backoff backoff;
  while ((!waiting.empty() || !in_flight_.empty()) && clock_.now() < give_up) {
    complete_sends();
    if (const auto message = probe(comm_, MPI_ANY_SOURCE, MPI_ANY_TAG)) {
      if (drop(*message)) waiting.erase(layout_.worker_of(message->MPI_SOURCE));
    } else {
      backoff.pause(give_up - clock_.now());
    }
  }
  // A kStop is empty: it is delivered eagerly, whether its worker takes it or not.
  wait_for_all(stops);
  return {waiting.begin(), waiting.end()};
}

bool ServerEndpoint::drop(const MPI_Status& message) {
  const int rank = message.MPI_SOURCE;
  const int worker = layout_.worker_sending(rank, message.MPI_TAG);
  switch (message.MPI_TAG) {
    case kUpdateHeader: {
      const UpdateHeader header =
          decode_update_header(take_message(rank, kUpdateHeader, comm_), rank, bounds_);
      take_update_info(rank, header);
      if (header.compressed()) {
        sparse_.take(rank, own_keys_, comm_);
        return false;
      }
      MPI_Request request = post_receive_floats(dropped_, rank, kUpdatePayload, comm_);
      wait_for(request);
      return false;
    }
    case kWorkerGone:
      take_text(message, comm_);
      take_ids(wait_for_message(comm_, rank, kGoneMembers), comm_);
      return false;
    case kOrphanedUpdate:
    case kAwaitingShard:
      take_ids(message, comm_);
      return false;
    case kRoundProgress:
      take_message(rank, kRoundProgress, comm_);
      return false;
    case kTimeline:
      timelines_[worker] = take_doubles(message, comm_);
      return false;
    case kFirstPull:
    case kWentSilent:
    case kGoodbye:
      take_signal(rank, static_cast<Tag>(message.MPI_TAG), comm_);
      return message.MPI_TAG == kGoodbye;
    default:
      throw MessageError(rank, fmt::format("message tag {} after the run", message.MPI_TAG));
  }
}

}  // namespace hetps::mpi
