#include "mpi/worker_endpoint.h"

#include <algorithm>

#include <fmt/format.h>

#include "engine/engine.h"
#include "mpi/patient_wait.h"
#include "mpi/sparse_wire.h"
#include "mpi/wire/message_checks.h"
#include "mpi/wire/message_error.h"
#include "mpi/wire/state_bytes.h"

namespace hetps::mpi {

namespace {

std::span<float> part(std::span<float> whole, const params::KeyRange& keys) {
  return whole.subspan(keys.begin, keys.size());
}

}  // namespace

WorkerEndpoint::WorkerEndpoint(MPI_Comm comm, MPI_Comm slice_comm, const RankLayout& layout,
                               std::vector<params::KeyRange> slices, RunClock& clock,
                               double stall_warning_seconds, double stall_timeout_seconds)
    : comm_(comm),
      slice_comm_(slice_comm),
      layout_(layout),
      server_(layout.server_rank()),
      slices_(std::move(slices)),
      clock_(clock),
      stall_warning_seconds_(stall_warning_seconds),
      stall_timeout_seconds_(stall_timeout_seconds),
      bounds_{layout.workers(), slices_.back().end},
      model_(slices_.back().end),
      update_(slices_.back().end) {
  for (int w = 0; w < layout_.workers(); ++w) {
    if (layout_.worker_rank(w) != layout_.rank()) workers_not_ended_.insert(w);
  }
}

void WorkerEndpoint::ask_first_pull() {
  MPI_Request request = post_signal(server_, kFirstPull, comm_);
  wait_for(request);
}

std::optional<engine::PulledModel> WorkerEndpoint::receive(double deadline) {
  if (!server_heard_at_) server_heard_at_ = now();
  Backoff backoff;
  while (!stop_seen_) {
    // The server's messages in the order it sent them: a reply before the kStop after it.
    if (const auto message = probe(comm_, server_, MPI_ANY_TAG)) {
      server_heard_at_ = now();
      if (message->MPI_TAG == kReplyHeader) {
        server_heard_at_.reset();
        return take_reply(server_, true);
      }
      if (message->MPI_TAG == kClock) {
        follow_server_clock();
        continue;
      }
      if (message->MPI_TAG == kMemberGone) {
        gone_members_.push_back(take_gone_member(*message));
        continue;
      }
      if (message->MPI_TAG == kStateRequest) {
        send_state();
        continue;
      }
      if (message->MPI_TAG != kStop) {
        throw MessageError(server_,
                           fmt::format("message tag {} to a waiting worker", message->MPI_TAG));
      }
      stop_seen_ = true;
      break;
    }
    if (const auto relayed = probe(comm_, MPI_ANY_SOURCE, kReplyHeader)) {
      server_heard_at_.reset();
      return take_reply(relayed->MPI_SOURCE, true);
    }
    const double gives_up_at = *server_heard_at_ + 2 * stall_timeout_seconds_;
    if (now() >= gives_up_at) server_taken_for_hung("a reply");
    const double left = deadline - now();
    if (left <= 0) break;
    // Past gives_up_at the next turn throws: a wait cut short there must not end as a deadline.
    backoff.pause(std::min(left, gives_up_at - now()));
  }
  return std::nullopt;
}

void WorkerEndpoint::server_taken_for_hung(std::string_view awaited) const {
  throw engine::ServerSilent(
      fmt::format("stalled: waited longer than twice run.stall_timeout_s = {} for {}, hearing "
                  "nothing from {}: a run held up by a worker would have ended after "
                  "run.stall_timeout_s, so the server is taken for hung",
                  stall_timeout_seconds_, awaited, layout_.describe_server()));
}

void WorkerEndpoint::wait_on_shards(const std::function<std::optional<int>()>& awaited_shard) {
  const auto tell = [&](int shard) {
    const std::vector<int> awaited = {shard};
    MPI_Request notice = post_ids(awaited, server_, kAwaitingShard, comm_);
    wait_for(notice);
  };
  // First at half the warning's wait: rank 0's wait for this worker's update began earlier (at
  // its last reply, before this step's compute), and its warning should name the shard already.
  double tell_at = now() + stall_warning_seconds_ / 2;
  bool told = false;
  Backoff backoff;
  for (;;) {
    const std::optional<int> shard = awaited_shard();
    if (!shard) break;
    if (*shard > 0 && now() >= tell_at) {
      tell_at = now() + stall_warning_seconds_;
      tell(*shard);
      told = true;
    }
    backoff.pause();
  }
  // A shard that answered after all no longer holds this worker up (0: none does).
  if (told) tell(0);
}

engine::PulledModel WorkerEndpoint::take_reply(int source, bool use) {
  // A reply from the server found by looking for any rank's may have passed the server's kClock
  // sent before it: time is as the server's clock says when it sent the reply.
  follow_server_clock();
  wait_for_relays();  // they are sent from the model buffer this reply overwrites
  if (source != server_) layout_.worker_sending(source, kReplyHeader);  // a leader
  const ReplyHeader header =
      decode_reply_header(take_message(source, kReplyHeader, comm_), source, bounds_);
  const double begin = now();
  if (source == server_) {
    // post_receive_floats waits for a slice to be announced: a hung shard rank holds it there.
    wait_on_shards([&]() -> std::optional<int> {
      for (int shard = 1; shard < layout_.servers(); ++shard) {
        if (!probe(slice_comm_, layout_.shard_rank(shard), kReplyModel)) return shard;
      }
      return std::nullopt;
    });
    std::vector<MPI_Request> requests;
    for (int shard = 0; shard < layout_.servers(); ++shard) {
      requests.push_back(post_receive_floats(part(model_, slices_[static_cast<size_t>(shard)]),
                                             layout_.shard_rank(shard), kReplyModel,
                                             shard == 0 ? comm_ : slice_comm_));
    }
    wait_for_all(requests);
  } else {
    MPI_Request request = post_receive_floats(model_, source, kReplyModel, comm_);
    wait_for(request);
  }
  const double received = now();
  std::vector<int> members;
  if (header.members > 0) {
    members = take_ids(wait_for_message(comm_, source, kReplyMembers), comm_);
    check_length(members.size(), static_cast<size_t>(header.members), source,
                 "the members of a reply");
    check_worker_ids(members, layout_.workers(), source, "the members of a reply");
  }
  std::vector<double> data_shares;
  if (header.data_shares > 0) {
    data_shares = take_doubles(wait_for_message(comm_, source, kReplyShares), comm_);
    check_length(data_shares.size(), static_cast<size_t>(header.data_shares), source,
                 "the data shares of a reply");
  }
  for (int r = 0; r < header.relays; ++r) {
    const RelayEntry entry =
        decode_relay_entry(take_message(source, kRelay, comm_), source, bounds_);
    if (!use) continue;
    Relay& relay = relays_.emplace_back();
    relay.header = entry.header;
    const int member = layout_.worker_rank(entry.worker);
    relay.requests = {post_header(relay.header, member, kReplyHeader, comm_),
                      post_floats(model_, member, kReplyModel, comm_)};
  }
  return engine::PulledModel{.plan = header.plan(std::move(members), std::move(data_shares)),
                             .model = model_,
                             .snapshot = {},  // the buffer is this rank's own
                             .version = header.version,
                             .update_id = header.update_id,
                             .update = update_,
                             .lr = header.lr,
                             .arrives = received,
                             .pull_seconds = received - begin,
                             .previous_push_seconds = push_seconds_};
}

int WorkerEndpoint::take_gone_member(const MPI_Status& message) {
  const std::vector<int> member = take_ids(message, comm_);
  check_length(member.size(), 1, message.MPI_SOURCE, "a gone member");
  check_worker_ids(member, layout_.workers(), message.MPI_SOURCE, "a gone member");
  return member.front();
}

void WorkerEndpoint::wait_for_relays() {
  for (Relay& relay : relays_) wait_for_all(relay.requests);
  relays_.clear();
}

void WorkerEndpoint::follow_server_clock() const {
  while (probe(comm_, server_, kClock)) {
    clock_.follow(decode_clock_state(take_message(server_, kClock, comm_), server_));
  }
}

bool WorkerEndpoint::sleep_until(double seconds) {
  Backoff backoff;
  for (;;) {
    follow_server_clock();
    if (!stop_seen_ && probe(comm_, server_, kStop)) stop_seen_ = true;
    const double left = seconds - now();
    if (stop_seen_ || left <= 0) return !stop_seen_;
    backoff.pause(left);
  }
}

void WorkerEndpoint::send_update(const protocol::UpdateInfo& info, std::span<const float> update,
                                 const worker::SparseDelta* sparse,
                                 const std::vector<UpdatePart>& parts, Tag header_tag,
                                 Tag payload_tag) {
  const double begin = now();
  pushed_ = UpdateHeader::of(info);
  if (sparse != nullptr) pushed_.kept_entries = static_cast<int64_t>(sparse->indices.size());
  pushed_members_ = info.members;
  pushed_step_seconds_ = info.merged_step_seconds;
  std::vector<MPI_Request> requests;
  std::vector<int> request_ranks;  // where each request sends to
  for (const UpdatePart& to : parts) {
    requests.push_back(post_header(pushed_, to.rank, header_tag, comm_));
    if (&to == &parts.front() && !pushed_members_.empty()) {
      requests.push_back(post_ids(pushed_members_, to.rank, kUpdateMembers, comm_));
      requests.push_back(post_doubles(pushed_step_seconds_, to.rank, kUpdateStepTimes, comm_));
    }
    if (sparse == nullptr) {
      requests.push_back(
          post_floats(update.subspan(to.keys.begin, to.keys.size()), to.rank, payload_tag, comm_));
    } else {
      const auto slice = post_sparse_slice(engine::slice_of(*sparse, to.keys), to.rank, comm_);
      requests.insert(requests.end(), slice.begin(), slice.end());
    }
    request_ranks.resize(requests.size(), to.rank);
  }
  wait_on_shards([&]() -> std::optional<int> {
    std::optional<int> pending;
    for (size_t i = 0; i < requests.size(); ++i) {
      int sent = 0;
      MPI_Test(&requests[i], &sent, MPI_STATUS_IGNORE);
      if (sent) continue;
      // A shard rank is worth telling rank 0 about; rank 0 itself, or a leader, is not (0).
      const int rank = request_ranks[i];
      if (rank != server_ && rank < layout_.servers()) return rank;
      // A stopped rank 0 takes no part of a large update, and nobody else would end the wait:
      // given up on as a wait for its reply is (its clock followed, which stands still while
      // it evaluates).
      if (rank == server_) {
        follow_server_clock();
        if (now() >= begin + 2 * stall_timeout_seconds_)
          server_taken_for_hung("an update to be taken");
      }
      pending = 0;
    }
    return pending;
  });
  push_seconds_ = now() - begin;
}

void WorkerEndpoint::push(const protocol::UpdateInfo& info, std::span<const float> update,
                          const worker::SparseDelta* sparse) {
  std::vector<UpdatePart> shards;
  for (int shard = 0; shard < layout_.servers(); ++shard) {
    shards.push_back({layout_.shard_rank(shard), slices_[static_cast<size_t>(shard)]});
  }
  send_update(info, update, sparse, shards, kUpdateHeader, kUpdatePayload);
}

void WorkerEndpoint::send_to_leader(int leader, const protocol::UpdateInfo& info,
                                    std::span<const float> update) {
  send_update(info, update, nullptr, {{layout_.worker_rank(leader), {0, update.size()}}},
              kMemberUpdateHeader, kMemberUpdatePayload);
}

void WorkerEndpoint::report_progress(const protocol::UpdateInfo& info,
                                     engine::RoundProgress progress) {
  const ProgressHeader header{progress, info.id};
  MPI_Request request = post_header(header, server_, kRoundProgress, comm_);
  wait_for(request);
}

std::optional<engine::MemberMessage> WorkerEndpoint::receive_from_member(double deadline) {
  Backoff backoff;
  for (;;) {
    follow_server_clock();
    if (!gone_members_.empty()) {
      engine::MemberMessage gone;
      gone.member = gone_members_.front();
      gone.gone = true;
      gone_members_.pop_front();
      return gone;
    }
    if (const auto gone = probe(comm_, server_, kMemberGone)) {
      gone_members_.push_back(take_gone_member(*gone));
      continue;
    }
    if (const auto header = probe(comm_, MPI_ANY_SOURCE, kMemberUpdateHeader)) {
      return take_member_update(*header);
    }
    if (probe(comm_, server_, kStop)) {
      stop_seen_ = true;
      return std::nullopt;
    }
    const double left = deadline - now();
    if (left <= 0) return std::nullopt;
    backoff.pause(left);
  }
}

engine::MemberMessage WorkerEndpoint::take_member_update(const MPI_Status& header_status) {
  const int source = header_status.MPI_SOURCE;
  const int member = layout_.worker_sending(source, kMemberUpdateHeader);
  const UpdateHeader header =
      decode_update_header(take_message(source, kMemberUpdateHeader, comm_), source, bounds_);
  // A member's update is its own and dense (send_to_leader).
  if (header.worker != member || header.members != 0 || header.compressed()) {
    throw MessageError(source,
                       fmt::format("a member's update of worker {} with {} members and "
                                   "{} kept entries, expected worker {}'s own, dense",
                                   header.worker, header.members, header.kept_entries, member));
  }
  std::vector<float>& buffer = member_updates_[member];
  buffer.resize(model_.size());
  MPI_Request request = post_receive_floats(buffer, source, kMemberUpdatePayload, comm_);
  wait_for(request);
  return engine::MemberMessage{
      .member = member, .gone = false, .info = header.info(), .update = buffer, .arrives = now()};
}

void WorkerEndpoint::report_gone(const std::string& error,
                                 const std::vector<int>& stranded_members) {
  gone_ = true;
  std::array<MPI_Request, 2> requests = {post_text(error, server_, kWorkerGone, comm_),
                                         post_ids(stranded_members, server_, kGoneMembers, comm_)};
  wait_for_all(requests);
}

void WorkerEndpoint::take_and_drop(const MPI_Status& message) {
  const int source = message.MPI_SOURCE;
  switch (message.MPI_TAG) {
    case kStop:
      take_signal(source, kStop, comm_);
      stop_seen_ = stop_received_ = true;
      return;
    case kReplyHeader:
      // Too late to use: taken so that its sender's send completes. A dead leader still hands
      // on the replies relayed through it while the run goes on (as the threads engine, whose
      // relays do not pass through the leader's thread), so that its members are not left
      // waiting.
      take_reply(source, gone_ && !stop_seen_);
      return;
    case kMemberGone:
      take_gone_member(message);
      return;
    case kClock:
      follow_server_clock();
      return;
    case kMemberUpdateHeader: {
      const int member = take_member_update(message).member;
      if (gone_ && !stop_seen_) {
        const std::vector<int> orphaned = {member};
        MPI_Request request = post_ids(orphaned, server_, kOrphanedUpdate, comm_);
        wait_for(request);
      }
      return;
    }
    case kEndOfRun:
      take_signal(source, kEndOfRun, comm_);
      workers_not_ended_.erase(layout_.worker_of(source));
      return;
    case kStateRequest:
      if (source == server_ && !stop_seen_) {
        send_state();
        return;
      }
      break;
    default:
      break;
  }
  throw MessageError(source, fmt::format("message tag {} to a worker at the end", message.MPI_TAG));
}

void WorkerEndpoint::send_state() {
  take_signal(server_, kStateRequest, comm_);
  if (!state_of_this_worker_) {
    throw MessageError(server_, "a request for a checkpoint's state to a worker that keeps none");
  }
  const std::vector<char> state = encode_state(state_of_this_worker_());
  MPI_Request request = post_bytes(state, server_, kWorkerState, comm_);
  wait_for(request);
}

void WorkerEndpoint::wait_for_end() {
  MPI_Request request = post_signal(server_, kWentSilent, comm_);
  wait_for(request);
  take_until_stop();
}

void WorkerEndpoint::take_until_stop() {
  Backoff backoff;
  while (!stop_received_) {
    if (const auto message = probe(comm_, MPI_ANY_SOURCE, MPI_ANY_TAG)) {
      take_and_drop(*message);
    } else {
      backoff.pause();
    }
  }
}

void WorkerEndpoint::say_goodbye(double patience, std::span<const double> timeline) {
  take_until_stop();
  std::vector<MPI_Request> ends;
  for (int w = 0; w < layout_.workers(); ++w) {
    const int rank = layout_.worker_rank(w);
    if (rank != layout_.rank()) ends.push_back(post_signal(rank, kEndOfRun, comm_));
  }
  // A kEndOfRun is empty: it is delivered eagerly, whether its worker takes it or not, so none
  // is left in flight when the wait below gives up.
  wait_for_all(ends);
  while (!workers_not_ended_.empty()) {
    take_and_drop(wait_for_message(comm_, MPI_ANY_SOURCE, MPI_ANY_TAG, patience, [&] {
      return fmt::format(
          "the end of the run on {}",
          layout_.describe_workers({workers_not_ended_.begin(), workers_not_ended_.end()}));
    }));
  }
  wait_for_relays();
  std::vector<MPI_Request> goodbyes;
  // Before the goodbye, which rank 0 takes as this worker's last message.
  if (!timeline.empty()) goodbyes.push_back(post_doubles(timeline, server_, kTimeline, comm_));
  for (int shard = 0; shard < layout_.servers(); ++shard) {
    goodbyes.push_back(post_signal(layout_.shard_rank(shard), kGoodbye, comm_));
  }
  wait_for_all(goodbyes);
}

}  // namespace hetps::mpi
