#include "mpi/server_endpoint.h"

#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "mpi/patient_wait.h"

namespace hetps::mpi {

ServerEndpoint::ServerEndpoint(MPI_Comm comm, const RankLayout& layout, size_t model_floats,
                               RunClock& clock)
    : comm_(comm), layout_(layout), clock_(clock), dropped_(model_floats) {}

ServerEndpoint::~ServerEndpoint() {
  complete_sends();
  if (!in_flight_.empty()) new std::list<ReplyInFlight>(std::move(in_flight_));  // never freed
}

void ServerEndpoint::send(engine::ServerLoop::Reply reply) {
  if (reply.plan.send_to != protocol::kServer || !reply.plan.gather_from.empty()) {
    throw std::invalid_argument(
        "engine = \"mpi\" does not carry updates to leader workers yet (the protocol's plan "
        "asks for them): run this protocol on engine = \"sim\" or \"threads\"");
  }
  ReplyInFlight& sent = in_flight_.emplace_back();
  const protocol::WorkerPlan& plan = reply.plan;
  sent.header = {plan.kind,       plan.max_local_steps, plan.change_threshold,
                 plan.keep_ratio, reply.version,        reply.update_id,
                 reply.lr};
  sent.model = std::move(reply.model);
  const int rank = layout_.worker_rank(reply.worker);
  sent.requests = {post_header(sent.header, rank, kReplyHeader, comm_),
                   post_floats(*sent.model, rank, kReplyModel, comm_)};
}

// Leaders are refused in `send`, so no worker is ever a leader here.
void ServerEndpoint::tell_member_gone(int leader, int member) {
  throw std::logic_error(
      fmt::format("mpi: worker {} cannot be told about member {}: no leaders", leader, member));
}

std::vector<int> ServerEndpoint::close_leader(int leader) {
  throw std::logic_error(fmt::format("mpi: worker {} is no leader: no leaders", leader));
}

void ServerEndpoint::complete_sends() {
  for (auto it = in_flight_.begin(); it != in_flight_.end();) {
    int done = 0;
    MPI_Testall(2, it->requests.data(), &done, MPI_STATUSES_IGNORE);
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
  const double begin = MPI_Wtime();
  state.evaluate(time);
  clock_.stand_still(MPI_Wtime() - begin);
}

void ServerEndpoint::take(const MPI_Status& message, engine::ServerLoop& server) {
  const int rank = message.MPI_SOURCE;
  const int worker = layout_.worker_of(rank);
  switch (message.MPI_TAG) {
    case kFirstPull:
      take_signal(rank, kFirstPull, comm_);
      server.on_first_pull(worker);
      return;
    case kUpdateHeader: {
      const protocol::UpdateInfo info =
          take_header<UpdateHeader>(rank, kUpdateHeader, comm_).info();
      if (info.worker != worker || info.id != server.owed_update(worker)) {
        throw std::logic_error(fmt::format(
            "rank {} sent an update of worker {} with id {}; expected worker {}'s update {}", rank,
            info.worker, info.id, worker, server.owed_update(worker)));
      }
      MPI_Request request =
          post_receive_floats(server.state().pool().buffer(info.id), rank, kUpdatePayload, comm_);
      wait_for(request);
      server.on_update(info);
      return;
    }
    case kWorkerGone:
      server.on_worker_gone(worker, take_text(message, comm_), {});
      return;
    default:
      throw std::logic_error(
          fmt::format("rank {} sent message tag {} during the run", rank, message.MPI_TAG));
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
  switch (message.MPI_TAG) {
    case kUpdateHeader: {
      take_header<UpdateHeader>(rank, kUpdateHeader, comm_);
      MPI_Request request = post_receive_floats(dropped_, rank, kUpdatePayload, comm_);
      wait_for(request);
      return false;
    }
    case kWorkerGone:
      take_text(message, comm_);
      return false;
    case kFirstPull:
    case kGoodbye:
      take_signal(rank, static_cast<Tag>(message.MPI_TAG), comm_);
      return message.MPI_TAG == kGoodbye;
    default:
      throw std::logic_error(
          fmt::format("rank {} sent message tag {} after the run", rank, message.MPI_TAG));
  }
}

}  // namespace hetps::mpi
