#include "engine/sim_engine.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <ranges>
#include <span>
#include <stdexcept>

#include <fmt/format.h>

#include "engine/checkpoint_schedule.h"
#include "engine/round_progress.h"
#include "engine/run_timeline.h"
#include "engine/sparse_push.h"
#include "engine/worker_factory.h"
#include "protocol/registry.h"
#include "worker/merge_updates.h"

namespace hetps::engine {

namespace {

double gbps_to_bytes_per_second(double gbps) { return gbps * 1e9 / 8.0; }

// Each worker's pull timed on a network of its own, whose links are all free.
double mean_idle_pull_seconds(const cluster::ClusterModel& cluster, int servers,
                              std::span<const double> model_shard_bytes) {
  double sum = 0;
  for (int w = 0; w < cluster.workers(); ++w) {
    sum += SimNetwork(cluster, servers).send_from_servers(w, model_shard_bytes, 0.0);
  }
  return sum / cluster.workers();
}

}  // namespace

SimEngine::SimEngine(const config::Config& config, const data::DataSplit& data,
                     const ModelSource& models, RunListener& listener)
    : config_(config),
      listener_(listener),
      learner_(models.make_learner()),
      state_(config, data, *learner_, listener),
      cluster_(config.cluster, config.seed),
      inspector_(config.run.stall_warning_s, config.run.stall_timeout_s,
                 [](int worker) { return fmt::format("worker {}", worker); }),
      replies_(config.cluster.workers),
      timeline_(make_timeline(config)) {
  const auto& layout = learner_->layout();
  network_ = std::make_unique<SimNetwork>(cluster_, config.cluster.servers);
  model_bytes_ = static_cast<double>(layout.bytes());
  shard_fraction_ = state_.server().shard_fractions();
  for (double fraction : shard_fraction_) model_shard_bytes_.push_back(model_bytes_ * fraction);
  shard_free_at_.assign(shard_fraction_.size(), 0.0);
  idle_pull_seconds_ = mean_idle_pull_seconds(cluster_, config.cluster.servers, model_shard_bytes_);
  step_work_seconds_ =
      learner_->flops_per_sample() * config.data.batch_size / (config.cluster.worker_gflops * 1e9);

  const int workers = config.cluster.workers;
  const auto partition = make_partition(config, data.train);
  for (int w = 0; w < workers; ++w)
    workers_.push_back(make_worker(config, data.train, partition, w, *learner_));
  clocks_.resize(static_cast<size_t>(workers));
}

SimEngine::~SimEngine() = default;

void SimEngine::schedule(double time, EventKind kind, int worker, int update_id) {
  if (kind != EventKind::Evaluation && kind != EventKind::WorkerFails) ++updates_in_flight_;
  events_.push(Event{time, sequence_++, kind, worker, update_id});
}

bool SimEngine::is_lost(const Event& event) const {
  return event.kind != EventKind::Evaluation && event.kind != EventKind::WorkerFails &&
         clocks_[static_cast<size_t>(event.worker)].silent;
}

bool SimEngine::crashed(int worker) const {
  const WorkerClock& clock = clocks_[static_cast<size_t>(worker)];
  return clock.silent && !clock.hung;
}

void SimEngine::begin() {
  const int workers = config_.cluster.workers;
  // Scheduled first, so that a failure comes before any other event of the same instant.
  for (const config::WorkerFailure& failure : config_.cluster.failures) {
    schedule(failure.time, EventKind::WorkerFails, failure.worker);
  }
  state_.protocol().start(protocol::run_shape(config_), *this);
  for (int w = 0; w < workers; ++w) state_.protocol().on_pull_request(w, *this);
  send_replies();

  state_.evaluate(0.0);
  schedule(config_.train.eval_interval, EventKind::Evaluation);
  next_checkpoint_ = config_.run.checkpoint_interval > 0 ? config_.run.checkpoint_interval
                                                         : std::numeric_limits<double>::infinity();
}

void SimEngine::checkpoint_before(const Event& next, const RunCheckpoints& checkpoints) {
  if (!checkpoints.save) return;
  const bool stop = checkpoints.stop != nullptr && checkpoints.stop->load();
  // None past the end of the run: resuming from there would have nothing to do.
  const double until = std::min(next.time, config_.train.max_time);
  if (!stop && next_checkpoint_ > until) return;
  // A checkpoint stands for every interval boundary up to the next event: nothing happens
  // between them.
  const double interval = config_.run.checkpoint_interval;
  if (interval > 0) next_checkpoint_ = next_multiple_after(until, interval);
  checkpoints.save(save_state(), now_);
  if (stop) throw Interrupted(now_);
}

metrics::Summary SimEngine::run(const RunCheckpoints& checkpoints) {
  wall_start_ = std::chrono::steady_clock::now();
  if (checkpoints.resume_from != nullptr) {
    restore_state(*checkpoints.resume_from);
  } else {
    begin();
  }
  std::string stop_reason = "stalled";  // no update in flight and none to come
  // The model may be at the target before any update: at the evaluation of time 0.
  const bool stopped_at_start = config_.train.stop_at_target && state_.target_reached();
  if (stopped_at_start) stop_reason = "target";
  while (updates_in_flight_ > 0 && !stopped_at_start) {
    checkpoint_before(events_.top(), checkpoints);
    Event event = events_.top();
    events_.pop();
    if (is_lost(event)) continue;
    inspect_stalls_until(std::min(event.time, config_.train.max_time));
    if (event.time > config_.train.max_time) {
      now_ = config_.train.max_time;
      stop_reason = "max_time";
      break;
    }
    now_ = event.time;
    if (event.kind == EventKind::Evaluation) {
      state_.evaluate(now_);
      if (config_.train.stop_at_target && state_.target_reached()) {
        stop_reason = "target";
        break;
      }
      schedule(now_ + config_.train.eval_interval, EventKind::Evaluation);
      continue;
    }
    if (event.kind == EventKind::WorkerFails) {
      fail(event.worker);
      continue;
    }
    --updates_in_flight_;
    if (event.kind == EventKind::PushReady) {
      send_update(event.update_id);
      continue;
    }
    if (event.kind == EventKind::MemberUpdateArrives) {
      gather(clocks_[static_cast<size_t>(event.worker)].leader, event.update_id);
      continue;
    }
    deliver(event.update_id);
    if (state_.budget_spent()) {
      stop_reason = "max_samples";
      break;
    }
  }
  if (stop_reason == "stalled") {
    // Nothing left to happen: a worker still owing its update is hung, and nothing will come.
    inspect_stalls_until(std::numeric_limits<double>::infinity());
    const auto workers = std::views::iota(0, config_.cluster.workers);
    if (std::ranges::all_of(workers, [this](int w) { return crashed(w); })) {
      stop_reason = "every_worker_failed";
    }
  }
  metrics::Summary summary = state_.finish(now_, stop_reason, "sim", wall_start_);
  publish_timeline(timeline_, cluster_, now_, listener_, summary);
  return summary;
}

void SimEngine::inspect_stalls_until(double time) {
  for (double at = inspector_.next_check(); at <= time && std::isfinite(at);
       at = inspector_.next_check()) {
    state_.report_stalls(inspector_.check(at), at);
  }
}

void SimEngine::deliver(int update_id) {
  protocol::UpdateInfo info = state_.pool().at(update_id).info;
  info.now = now_;
  clocks_[static_cast<size_t>(info.worker)].update_in_flight = -1;
  inspector_.settle(info.worker);
  for (int member : info.members) inspector_.settle(member);
  replies_.merged(info.worker, info.members);
  state_.protocol().on_update(info, *this);
  state_.protocol().on_pull_request(info.worker, *this);
  for (int member : info.members) {
    if (!crashed(member)) state_.protocol().on_pull_request(member, *this);
  }
  send_replies();
}

// Without this, the simulator would evaluate the unchanging model every train.eval_interval
// until the shards are free, which a tiny cluster.apply_gbps puts beyond any run.
void SimEngine::require_servers_free_within_timeout(const std::function<std::string()>& cause) {
  const double busy_for = servers_free_at() - now_;
  const double timeout = config_.run.stall_timeout_s;
  if (busy_for < timeout) return;  // as the stall inspector, which stalls at the timeout
  state_.report_stalls(
      {{},
       fmt::format("the server shards are busy until {:.6g} s of virtual time, {:.6g} s from now "
                   "({}), and every pull reply waits for them: longer than run.stall_timeout_s = "
                   "{} s, after which a run is taken for hung",
                   now_ + busy_for, busy_for, cause(), timeout)},
      now_ + timeout);
}

double SimEngine::servers_free_at() const {
  double free_at = now_;
  for (double t : shard_free_at_) free_at = std::max(free_at, t);
  return free_at;
}

void SimEngine::reply_pull(int worker, const protocol::WorkerPlan& plan) {
  state_.check_plan(worker, plan);
  if (crashed(worker)) return;
  replies_.add(worker, state_.within_budget(plan));
}

void SimEngine::send_replies() {
  for (const ReplyBatch::Route& route : replies_.take()) send_reply(route);
}

void SimEngine::send_reply(const ReplyBatch::Route& route) {
  const int worker = route.worker;
  const protocol::WorkerPlan& plan = route.plan;
  WorkerClock& clock = clocks_[static_cast<size_t>(worker)];
  if (clock.silent) {
    // The server sends and waits; a hung worker will never answer.
    if (clock.hung) inspector_.expect(worker, servers_free_at());
    return;
  }
  double sent = servers_free_at();
  double transfer_starts = sent;
  double pulled = 0;
  // A silent leader hands nothing on: the server sends the model itself.
  if (route.via == protocol::kServer || clocks_[static_cast<size_t>(route.via)].silent) {
    pulled = network_->send_from_servers(worker, model_shard_bytes_, sent);
    state_.stats().add_bytes_from_server(static_cast<int64_t>(model_bytes_));
  } else {
    // The leader hands on the copy it has just received.
    const WorkerClock& leader = clocks_[static_cast<size_t>(route.via)];
    sent = leader.model_arrived - leader.last_pull_seconds;
    transfer_starts = leader.model_arrived;
    pulled = network_->send(route.via, worker, model_bytes_, leader.model_arrived);
    state_.stats().add_bytes_worker_to_worker(static_cast<int64_t>(model_bytes_));
  }
  clock.last_pull_seconds = pulled - sent;
  clock.model_arrived = pulled;
  clock.leader = plan.send_to;
  clock.awaited_members.clear();
  clock.gathered.clear();
  for (int member : plan.gather_from) {
    if (crashed(member)) continue;
    const auto early = std::ranges::find_if(
        clock.early_updates, [&](int id) { return state_.pool().at(id).info.worker == member; });
    if (early == clock.early_updates.end()) {
      clock.awaited_members.push_back(member);
    } else {
      clock.gathered.push_back(*early);
      clock.early_updates.erase(early);
    }
  }
  clock.own_update_ready = false;

  // The steps are computed now, on the model this reply carries; only their delivery waits.
  const int id = state_.pool().acquire();
  worker::RoundResult result = workers_[static_cast<size_t>(worker)]->run(
      plan, state_.server().model(), state_.current_lr(), state_.pool().buffer(id));

  clock.compressed = std::move(result.sparse);

  double computed = pulled;
  for (int s = 0; s < result.steps; ++s) {
    const double work = step_work_seconds_ * cluster_.step_noise(worker, clock.steps++);
    computed = cluster_.compute_end(worker, computed, work);
  }
  protocol::UpdateInfo& info = state_.pool().at(id).info;
  info.id = id;
  info.worker = worker;
  info.kind = plan.kind;
  info.base_version = state_.server().version();
  info.clock = ++clock.pushes;
  info.steps = result.steps;
  info.samples = result.samples;
  info.train_loss = result.mean_loss;
  info.compute_seconds = computed - pulled;
  metrics::WorkerActivity& activity = timeline_.worker(worker);
  activity.begin_cycle();
  activity.record(metrics::Activity::kCommunicate, transfer_starts, pulled);
  activity.record(metrics::Activity::kCompute, pulled, computed);
  clock.update_in_flight = id;
  inspector_.expect(worker, sent);
  schedule(computed, EventKind::PushReady, worker, id);
}

void SimEngine::send_update(int update_id) {
  protocol::UpdateInfo& info = state_.pool().at(update_id).info;
  WorkerClock& clock = clocks_[static_cast<size_t>(info.worker)];
  if (!clock.awaited_members.empty() || !clock.gathered.empty()) {
    clock.own_update_ready = true;
    name_awaited_members(info.worker);
    push_merged_when_complete(info.worker);
    return;
  }
  if (clock.leader == protocol::kServer) {
    push_to_servers(update_id);
    return;
  }
  if (crashed(clock.leader)) {
    orphan(info.worker, update_id);
    return;
  }
  const double arrived = network_->send(info.worker, clock.leader, model_bytes_, now_);
  timeline_.worker(info.worker).record(metrics::Activity::kCommunicate, now_, arrived);
  info.push_seconds = arrived - now_;
  info.pull_seconds = clock.last_pull_seconds;
  info.comm_seconds = info.push_seconds + info.pull_seconds;
  schedule(arrived, EventKind::MemberUpdateArrives, info.worker, update_id);
}

void SimEngine::push_to_servers(int update_id) {
  protocol::UpdateInfo& info = state_.pool().at(update_id).info;
  const WorkerClock& clock = clocks_[static_cast<size_t>(info.worker)];
  const worker::SparseDelta* sparse = clock.compressed ? &*clock.compressed : nullptr;
  const double arrived =
      sparse == nullptr
          ? network_->send_to_servers(info.worker, model_shard_bytes_, now_)
          : network_->send_to_servers(info.worker,
                                      shard_bytes(*sparse, state_.server().shard_ranges()), now_);
  state_.stats().add_bytes_to_server(push_bytes(state_.server().model().size(), sparse));
  timeline_.worker(info.worker).record(metrics::Activity::kCommunicate, now_, arrived);
  info.push_seconds = arrived - now_;
  info.pull_seconds = clock.last_pull_seconds;
  info.comm_seconds = info.push_seconds + info.pull_seconds;
  schedule(arrived, EventKind::UpdateArrives, info.worker, update_id);
}

void SimEngine::gather(int leader, int update_id) {
  const int member = state_.pool().at(update_id).info.worker;
  clocks_[static_cast<size_t>(member)].update_in_flight = -1;
  WorkerClock& clock = clocks_[static_cast<size_t>(leader)];
  if (crashed(leader)) {
    orphan(member, update_id);
    return;
  }
  // Until the leader pushes, the member's update is with it.
  inspector_.held_up(member, update_with_leader(leader));
  const auto awaited = std::ranges::find(clock.awaited_members, member);
  if (awaited == clock.awaited_members.end()) {
    // The member was answered before its leader: its update waits for the leader's plan.
    clock.early_updates.push_back(update_id);
    return;
  }
  clock.awaited_members.erase(awaited);
  clock.gathered.push_back(update_id);
  name_awaited_members(leader);
  // A hung leader holds what it gathered: only the stall inspector can notice.
  if (!clock.silent) push_merged_when_complete(leader);
}

void SimEngine::name_awaited_members(int leader) {
  const WorkerClock& clock = clocks_[static_cast<size_t>(leader)];
  if (!clock.own_update_ready || clock.awaited_members.empty()) return;
  inspector_.held_up(leader, updates_of_members(clock.awaited_members));
}

void SimEngine::push_merged_when_complete(int leader) {
  WorkerClock& clock = clocks_[static_cast<size_t>(leader)];
  if (!clock.own_update_ready || !clock.awaited_members.empty()) return;
  const int own = clock.update_in_flight;
  std::vector<worker::Contribution> contributions = {
      {state_.pool().at(own).info, state_.pool().buffer(own).data()}};
  for (int id : clock.gathered) {
    contributions.push_back({state_.pool().at(id).info, state_.pool().buffer(id).data()});
  }
  protocol::UpdateInfo merged = worker::merge_updates(contributions, state_.pool().buffer(own));
  // Counted as merged, as every engine counts them: a push lost with its leader is not.
  state_.stats().add_bytes_worker_to_worker(static_cast<int64_t>(model_bytes_) *
                                            static_cast<int64_t>(clock.gathered.size()));
  for (int id : clock.gathered) state_.discard(id);
  clock.gathered.clear();
  clock.own_update_ready = false;
  state_.pool().at(own).info = merged;
  push_to_servers(own);
}

void SimEngine::orphan(int member, int update_id) {
  state_.discard(update_id);
  clocks_[static_cast<size_t>(member)].leader = protocol::kServer;
  inspector_.settle(member);
  state_.protocol().on_pull_request(member, *this);
  send_replies();
}

// A crashed worker's death is announced (the protocol stops waiting for it); a hung one just
// goes quiet, as a stuck process would, and only a stall inspector can notice.
void SimEngine::fail(int worker) {
  const auto failure =
      std::ranges::find(config_.cluster.failures, worker, &config::WorkerFailure::worker);
  WorkerClock& clock = clocks_[static_cast<size_t>(worker)];
  clock.silent = true;
  timeline_.worker(worker).stop_at(now_);
  const bool crash = failure->kind == "crash";
  clock.hung = !crash;
  state_.record(
      {crash ? "worker_failed" : "worker_hung", {{"worker", worker}, {"kind", failure->kind}}},
      now_);
  // The members whose updates a dead leader took with it.
  std::vector<int> stranded;
  if (clock.update_in_flight >= 0) {
    stranded = state_.pool().at(clock.update_in_flight).info.members;
    state_.discard(clock.update_in_flight);
    clock.update_in_flight = -1;
    // Its own update counts as in flight until its steps are done, a member's until it reaches
    // its leader, a merged one until it reaches the server.
    if (!clock.own_update_ready) --updates_in_flight_;
  }
  if (!crash) return;
  for (int id : clock.gathered) {
    stranded.push_back(state_.pool().at(id).info.worker);
    state_.discard(id);
  }
  for (int id : clock.early_updates) {
    stranded.push_back(state_.pool().at(id).info.worker);
    state_.discard(id);
  }
  clock.gathered.clear();
  clock.early_updates.clear();
  clock.awaited_members.clear();
  inspector_.settle(worker);
  for (int leader = 0; leader < static_cast<int>(clocks_.size()); ++leader) {
    WorkerClock& other = clocks_[static_cast<size_t>(leader)];
    if (std::erase(other.awaited_members, worker) > 0 && !other.silent) {
      push_merged_when_complete(leader);
    }
  }
  state_.protocol().on_worker_failed(worker, *this);
  for (int member : stranded) {
    if (crashed(member)) continue;
    clocks_[static_cast<size_t>(member)].leader = protocol::kServer;
    inspector_.settle(member);
    state_.protocol().on_pull_request(member, *this);
  }
  send_replies();
}

int64_t SimEngine::apply(const protocol::ApplyOrder& order) {
  send_replies();  // made on the model before this apply
  const int64_t version = state_.apply(order);
  const double apply_rate = gbps_to_bytes_per_second(config_.cluster.apply_gbps);
  const double work_bytes = model_bytes_ * static_cast<double>(order.update_ids.size());
  for (size_t s = 0; s < shard_free_at_.size(); ++s) {
    shard_free_at_[s] =
        std::max(now_, shard_free_at_[s]) + work_bytes * shard_fraction_[s] / apply_rate;
  }
  require_servers_free_within_timeout([&] {
    return fmt::format("cluster.apply_gbps = {} for {} update(s)", config_.cluster.apply_gbps,
                       order.update_ids.size());
  });
  return version;
}

void SimEngine::discard(int update_id) { state_.discard(update_id); }

double SimEngine::charge_switch() {
  // The replies not sent yet wait as well: no worker gets a model while the cluster switches.
  const double overhead = config_.cluster.switch_overhead_pulls * idle_pull_seconds_;
  const double held_until = servers_free_at() + overhead;
  for (double& free_at : shard_free_at_) free_at = held_until;
  require_servers_free_within_timeout([this] {
    return fmt::format("cluster.switch_overhead_pulls = {}", config_.cluster.switch_overhead_pulls);
  });
  return overhead;
}

void SimEngine::set_optimizer(const protocol::OptimizerOverride& settings) {
  send_replies();  // made with the learning rate before this change
  state_.set_optimizer(settings);
}

void SimEngine::record(const protocol::ProtocolEvent& event) { state_.record(event, now_); }

}  // namespace hetps::engine
