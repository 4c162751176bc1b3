#include "mpi/worker_endpoint.h"

#include <array>
#include <stdexcept>

#include "mpi/patient_wait.h"

namespace hetps::mpi {
namespace {

std::logic_error no_leaders() {
  return std::logic_error(
      "mpi: a worker was asked to act as a leader or member, which the "
      "server refuses");
}

}  // namespace

WorkerEndpoint::WorkerEndpoint(MPI_Comm comm, int server_rank, size_t model_floats,
                               const RunClock& clock)
    : comm_(comm),
      server_(server_rank),
      clock_(clock),
      model_(model_floats),
      update_(model_floats) {}

void WorkerEndpoint::send_signal(Tag tag) {
  MPI_Request request = post_signal(server_, tag, comm_);
  wait_for(request);
}

void WorkerEndpoint::ask_first_pull() { send_signal(kFirstPull); }

std::optional<engine::PulledModel> WorkerEndpoint::receive(double deadline) {
  Backoff backoff;
  while (!stop_seen_) {
    if (const auto message = probe(comm_, server_, MPI_ANY_TAG)) {
      if (message->MPI_TAG != kStop) return take_reply();
      stop_seen_ = true;
      break;
    }
    const double left = deadline - now();
    if (left <= 0) break;
    backoff.pause(left);
  }
  return std::nullopt;
}

engine::PulledModel WorkerEndpoint::take_reply() {
  const auto header = take_header<ReplyHeader>(server_, kReplyHeader, comm_);
  const double begin = now();
  MPI_Request request = post_receive_floats(model_, server_, kReplyModel, comm_);
  wait_for(request);
  const double received = now();
  return engine::PulledModel{.plan = header.plan(),
                             .model = model_,
                             .snapshot = {},  // the buffer is this rank's own
                             .version = header.version,
                             .update_id = header.update_id,
                             .update = update_,
                             .lr = header.lr,
                             .arrives = received,
                             .transfer_seconds = push_seconds_ + (received - begin)};
}

bool WorkerEndpoint::sleep_until(double seconds) {
  Backoff backoff;
  for (;;) {
    if (!stop_seen_ && probe(comm_, server_, kStop)) stop_seen_ = true;
    const double left = seconds - now();
    if (stop_seen_ || left <= 0) return !stop_seen_;
    backoff.pause(left);
  }
}

void WorkerEndpoint::push(const protocol::UpdateInfo& info, std::span<const float> update) {
  const double begin = now();
  pushed_ = UpdateHeader::of(info);
  std::array<MPI_Request, 2> requests = {post_header(pushed_, server_, kUpdateHeader, comm_),
                                         post_floats(update, server_, kUpdatePayload, comm_)};
  wait_for_all(requests);
  push_seconds_ = now() - begin;
}

double WorkerEndpoint::member_push_arrival(int, double) { throw no_leaders(); }

void WorkerEndpoint::send_to_leader(int, const protocol::UpdateInfo&, std::span<const float>) {
  throw no_leaders();
}

std::optional<engine::MemberMessage> WorkerEndpoint::receive_from_member(double) {
  throw no_leaders();
}

void WorkerEndpoint::report_gone(const std::string& error, const std::vector<int>&) {
  MPI_Request request = post_text(error, server_, kWorkerGone, comm_);
  wait_for(request);
}

// The server's messages come in the order it sent them, kStop last.
void WorkerEndpoint::wait_for_end() {
  Backoff backoff;
  while (!stop_received_) {
    if (const auto message = probe(comm_, server_, MPI_ANY_TAG)) {
      if (message->MPI_TAG == kStop) {
        take_signal(server_, kStop, comm_);
        stop_seen_ = stop_received_ = true;
      } else {
        take_reply();  // too late to use: taken so that the server's send completes
      }
    } else {
      backoff.pause();
    }
  }
}

void WorkerEndpoint::say_goodbye() {
  wait_for_end();
  send_signal(kGoodbye);
}

}  // namespace hetps::mpi
