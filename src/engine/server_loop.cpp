#include "engine/server_loop.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "engine/worker_loop.h"
#include "protocol/registry.h"

namespace hetps::engine {

ServerLoop::ServerLoop(const config::Config& config, const data::DataSplit& data,
                       model::Learner& evaluator, RunListener& listener, Engine& engine,
                       std::function<double()> clock,
                       std::function<std::string(int worker)> describe_worker, RemoteShards* remote)
    : config_(config),
      state_(config, data, evaluator, listener, remote),
      engine_(engine),
      clock_(std::move(clock)),
      describe_worker_(std::move(describe_worker)),
      inspector_(config.run.stall_warning_s, config.run.stall_timeout_s, describe_worker_),
      replies_(config.cluster.workers),
      owed_(static_cast<size_t>(config.cluster.workers), -1),
      gone_(static_cast<size_t>(config.cluster.workers), false),
      leader_of_(static_cast<size_t>(config.cluster.workers), protocol::kServer),
      gathering_(static_cast<size_t>(config.cluster.workers)),
      with_leader_(static_cast<size_t>(config.cluster.workers), false),
      gathering_now_(static_cast<size_t>(config.cluster.workers), false),
      shard_failures_(config.cluster),
      first_pull_seen_(static_cast<size_t>(config.cluster.workers), false),
      silent_(static_cast<size_t>(config.cluster.workers), false),
      next_evaluation_(config.train.eval_interval) {
  for (int worker = 0; worker < config.cluster.workers; ++worker) {
    const config::WorkerFailure* failure = failure_of(config.cluster, worker);
    if (failure != nullptr && failure->kind == "hang") hangs_ahead_.push_back(failure);
  }
  std::ranges::sort(hangs_ahead_, std::ranges::greater{},
                    [](const config::WorkerFailure* hang) { return hang->time; });
}

void ServerLoop::start() {
  // The time-0 evaluation first: the run clock is already going, and what the protocol records
  // as it starts (Petrel's first regroup, SaPus' θ) must not come before a record at 0.
  engine_.evaluate(state_, 0.0);
  state_.protocol().start(protocol::run_shape(config_), *this);
  send_replies();
  // A worker stuck before its first pull (loading data, say) is a stall like any other.
  for (int worker = 0; worker < config_.cluster.workers; ++worker) {
    if (owed_[static_cast<size_t>(worker)] < 0) inspector_.expect(worker, now(), "its first pull");
  }
}

std::string ServerLoop::serve(Checkpointer* checkpointer) {
  // The model may be at the target before any update: at the evaluation of time 0.
  if (config_.train.stop_at_target && state_.target_reached()) return "target";
  for (;;) {
    double wake = std::min({next_evaluation_, inspector_.next_check(), config_.train.max_time,
                            next_hang(), shard_failures_.next()});
    // While draining, every message that brings the workers to rest wakes the loop.
    if (checkpointer != nullptr && !draining_) {
      wake = std::min(wake, checkpointer->schedule().next_look(now()));
    }
    engine_.serve_one(wake, *this);
    const double time = now();
    if (const config::ShardFailure* crash = shard_failures_.due(time)) crash_shard(*crash);
    log_hangs_until(time);
    if (time >= config_.train.max_time) return "max_time";
    if (state_.budget_spent()) return "max_samples";
    if (time >= next_evaluation_) {
      engine_.evaluate(state_, time);
      if (config_.train.stop_at_target && state_.target_reached()) return "target";
      next_evaluation_ = time + config_.train.eval_interval;
    }
    state_.report_stalls(inspector_.check(time), time);
    if (every_worker_gone()) return "every_worker_failed";
    if (checkpointer != nullptr) checkpoint_when_due(*checkpointer, time);
  }
}

void ServerLoop::checkpoint_when_due(Checkpointer& checkpointer, double time) {
  if (!draining_) {
    if (!checkpointer.schedule().due(time)) return;
    draining_ = true;
  }
  if (!workers_at_rest(time) || !checkpointer.take(*this)) return;
  draining_ = false;
  release_replies();
}

bool ServerLoop::workers_at_rest(double time) const {
  for (int worker = 0; worker < config_.cluster.workers; ++worker) {
    const auto w = static_cast<size_t>(worker);
    if (gone_[w] || silent_[w]) continue;
    const config::WorkerFailure* failure = failure_of(config_.cluster, worker);
    // Due by `time` but not heard of yet: it may still be writing down where it stopped.
    if (failure != nullptr && failure->time <= time) return false;
    if (!first_pull_seen_[w]) return false;
    const bool reply_held =
        std::ranges::any_of(held_, [worker](const Reply& reply) { return reply.worker == worker; });
    if (owed_[w] >= 0 && !reply_held) return false;
  }
  return true;
}

void ServerLoop::release_replies() {
  std::vector<Reply> held = std::move(held_);
  held_.clear();
  const double awaited_since = now();
  for (Reply& reply : held) dispatch(std::move(reply), awaited_since);
}

double ServerLoop::next_hang() const {
  return hangs_ahead_.empty() ? std::numeric_limits<double>::infinity() : hangs_ahead_.back()->time;
}

void ServerLoop::log_hangs_until(double time) {
  while (!hangs_ahead_.empty() && hangs_ahead_.back()->time <= time) {
    const config::WorkerFailure& hang = *hangs_ahead_.back();
    state_.record({"worker_hung", {{"worker", hang.worker}, {"kind", hang.kind}}}, hang.time);
    hangs_ahead_.pop_back();
  }
}

void ServerLoop::crash_shard(const config::ShardFailure& crash) {
  log_hangs_until(crash.time);
  state_.record({"shard_failed", {{"shard", crash.shard}}}, crash.time);
  throw ShardCrashed(crash.shard, crash.time);
}

void ServerLoop::on_first_pull(int worker) {
  first_pull_seen_[static_cast<size_t>(worker)] = true;
  inspector_.settle(worker);
  state_.protocol().on_pull_request(worker, *this);
  send_replies();
}

void ServerLoop::release_owed(int worker) {
  int& owed = owed_[static_cast<size_t>(worker)];
  if (owed >= 0) state_.discard(owed);
  owed = -1;
  inspector_.settle(worker);
}

void ServerLoop::on_update(protocol::UpdateInfo info, int64_t bytes_to_server) {
  info.now = now();
  const auto leader = static_cast<size_t>(info.worker);
  owed_[leader] = -1;
  inspector_.settle(info.worker);
  // The members' buffers were read by the leader, the dead ones' included if they sent.
  for (int member : gathering_[leader]) release_owed(member);
  state_.pool().at(info.id).info = info;
  state_.stats().add_bytes_to_server(bytes_to_server);
  state_.stats().add_bytes_worker_to_worker(state_.model_bytes() *
                                            static_cast<int64_t>(info.members.size()));
  replies_.merged(info.worker, info.members);
  state_.protocol().on_update(info, *this);
  state_.protocol().on_pull_request(info.worker, *this);
  for (int member : info.members) {
    if (!gone_[static_cast<size_t>(member)]) state_.protocol().on_pull_request(member, *this);
  }
  send_replies();
}

void ServerLoop::on_worker_gone(int worker, const std::string& error,
                                const std::vector<int>& stranded_members) {
  if (!error.empty()) {
    throw std::runtime_error(fmt::format("{} failed: {}", describe_worker_(worker), error));
  }
  const auto w = static_cast<size_t>(worker);
  gone_[w] = true;
  // Its update id stays owed, and is freed as if the reply had been sent. Those it was to hand
  // on, the server sends itself.
  std::erase_if(held_, [worker](const Reply& reply) { return reply.worker == worker; });
  for (Reply& reply : held_) {
    if (reply.via == worker) reply.via = protocol::kServer;
  }
  const int leader = leader_of_[w];
  if (leader != protocol::kServer && !gone_[static_cast<size_t>(leader)]) {
    // Its update may be with its leader: the buffer is freed with the leader's merge.
    inspector_.settle(worker);
    engine_.tell_member_gone(leader, worker);
    name_awaited_members(leader);
  } else {
    release_owed(worker);
  }
  std::vector<int> orphaned = stranded_members;
  if (!gathering_[w].empty()) {
    for (int member : engine_.close_leader(worker)) orphaned.push_back(member);
    for (int member : gathering_[w]) {
      if (gone_[static_cast<size_t>(member)]) release_owed(member);
    }
  }
  state_.record({"worker_failed", {{"worker", worker}, {"kind", "crash"}}}, now());
  state_.protocol().on_worker_failed(worker, *this);
  send_replies();
  for (int member : orphaned) on_orphaned_update(member);
}

void ServerLoop::on_orphaned_update(int member) {
  release_owed(member);
  leader_of_[static_cast<size_t>(member)] = protocol::kServer;
  if (gone_[static_cast<size_t>(member)]) return;
  state_.protocol().on_pull_request(member, *this);
  send_replies();
}

void ServerLoop::on_round_progress(int worker, RoundProgress progress, int update_id) {
  const auto w = static_cast<size_t>(worker);
  // Update ids are never reused: a notice of another round names another id.
  if (owed_[w] != update_id) return;
  if (progress == RoundProgress::kGathering) {
    if (gathering_[w].empty()) return;
    gathering_now_[w] = true;
    name_awaited_members(worker);
    return;
  }
  const int leader = leader_of_[w];
  if (leader == protocol::kServer) return;
  with_leader_[w] = true;
  inspector_.held_up(worker, update_with_leader(leader));
  name_awaited_members(leader);
}

void ServerLoop::name_awaited_members(int leader) {
  const auto l = static_cast<size_t>(leader);
  if (!gathering_now_[l]) return;
  std::vector<int> awaited;
  for (int member : gathering_[l]) {
    const auto m = static_cast<size_t>(member);
    if (!with_leader_[m] && !gone_[m]) awaited.push_back(member);
  }
  if (awaited.empty()) {
    // It merges and pushes now: what holds it up from here (a shard, on mpi) is not a member.
    gathering_now_[l] = false;
    inspector_.held_up(leader, "");
    return;
  }
  inspector_.held_up(leader, updates_of_members(awaited));
}

void ServerLoop::reply_pull(int worker, const protocol::WorkerPlan& plan) {
  state_.check_plan(worker, plan);
  if (gone_[static_cast<size_t>(worker)]) return;
  replies_.add(worker, state_.within_budget(plan));
}

void ServerLoop::send_replies() {
  std::vector<ReplyBatch::Route> routes = replies_.take();
  const double awaited_since = now();
  for (ReplyBatch::Route& route : routes) {
    const auto w = static_cast<size_t>(route.worker);
    const int id = state_.pool().acquire();
    const int64_t version = state_.server().version();
    owed_[w] = id;
    leader_of_[w] = route.plan.send_to;
    gathering_[w] = route.plan.gather_from;
    with_leader_[w] = false;
    gathering_now_[w] = false;
    const auto relays = std::ranges::count(routes, route.worker, &ReplyBatch::Route::via);
    Reply reply{route.worker,
                std::move(route.plan),
                snapshots_.at(state_.server().model(), version),
                version,
                id,
                state_.pool().buffer(id),
                state_.current_lr(),
                0,
                route.via,
                static_cast<int>(relays)};
    if (draining_) {
      engine_.keep_for_later(version);
      held_.push_back(std::move(reply));
    } else {
      dispatch(std::move(reply), awaited_since);
    }
  }
}

void ServerLoop::count_bytes(const Reply& reply, int64_t times) {
  const int64_t bytes = state_.model_bytes() * times;
  if (reply.via == protocol::kServer) {
    state_.stats().add_bytes_from_server(bytes);
  } else {
    state_.stats().add_bytes_worker_to_worker(bytes);
  }
}

void ServerLoop::dispatch(Reply reply, double awaited_since) {
  // Counted as it leaves: a reply held through a checkpoint may lose its worker, or its leader,
  // meanwhile.
  count_bytes(reply, 1);
  reply.sent = now();
  inspector_.expect(reply.worker, awaited_since);
  engine_.send(std::move(reply));
}

bool ServerLoop::every_worker_gone() const {
  return std::find(gone_.begin(), gone_.end(), false) == gone_.end();
}

}  // namespace hetps::engine
