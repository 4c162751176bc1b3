#include "engine/sim_engine.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "engine/worker_factory.h"

namespace hetps::engine {

namespace {

double gbps_to_bytes_per_second(double gbps) { return gbps * 1e9 / 8.0; }

}  // namespace

SimEngine::SimEngine(const config::Config& config, const data::DataSplit& data,
                     const ModelSource& models, RunListener& listener)
    : config_(config),
      learner_(models.make_learner()),
      state_(config, data, *learner_, listener),
      cluster_(config.cluster, config.seed),
      inspector_(config.run.stall_warning_s, config.run.stall_timeout_s,
                 [](int worker) { return fmt::format("worker {}", worker); }) {
  const auto& layout = learner_->layout();
  network_ = std::make_unique<SimNetwork>(cluster_, config.cluster.servers);
  model_bytes_ = static_cast<double>(layout.bytes());
  shard_fraction_ = state_.server().shard_fractions();
  shard_free_at_.assign(shard_fraction_.size(), 0.0);
  step_work_seconds_ =
      learner_->flops_per_sample() * config.data.batch_size / (config.cluster.worker_gflops * 1e9);

  const int workers = config.cluster.workers;
  for (int w = 0; w < workers; ++w)
    workers_.push_back(make_worker(config, data.train, w, *learner_));
  clocks_.resize(static_cast<size_t>(workers));
}

SimEngine::~SimEngine() = default;

void SimEngine::schedule(double time, EventKind kind, int worker, int update_id) {
  if (kind == EventKind::PushReady || kind == EventKind::UpdateArrives) ++updates_in_flight_;
  events_.push(Event{time, sequence_++, kind, worker, update_id});
}

bool SimEngine::is_lost(const Event& event) const {
  return (event.kind == EventKind::PushReady || event.kind == EventKind::UpdateArrives) &&
         clocks_[static_cast<size_t>(event.worker)].silent;
}

metrics::Summary SimEngine::run() {
  const auto wall_start = std::chrono::steady_clock::now();
  const int workers = config_.cluster.workers;
  // Scheduled first, so that a failure comes before any other event of the same instant.
  for (const config::WorkerFailure& failure : config_.cluster.failures) {
    schedule(failure.time, EventKind::WorkerFails, failure.worker);
  }
  state_.protocol().start(
      protocol::RunShape{workers, config_.train.max_samples, config_.data.batch_size}, *this);
  for (int w = 0; w < workers; ++w) state_.protocol().on_pull_request(w, *this);

  state_.evaluate(0.0);
  schedule(config_.train.eval_interval, EventKind::Evaluation);
  std::string stop_reason = "stalled";  // no update in flight and none to come
  while (updates_in_flight_ > 0) {
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
    deliver(event.update_id);
    if (state_.budget_spent()) {
      stop_reason = "max_samples";
      break;
    }
  }
  // Nothing left to happen: a worker still owing its update is hung, and nothing will come.
  if (stop_reason == "stalled") inspect_stalls_until(std::numeric_limits<double>::infinity());
  return state_.finish(now_, stop_reason, "sim", wall_start);
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
  state_.protocol().on_update(info, *this);
  state_.protocol().on_pull_request(info.worker, *this);
}

double SimEngine::servers_free_at() const {
  double free_at = now_;
  for (double t : shard_free_at_) free_at = std::max(free_at, t);
  return free_at;
}

void SimEngine::reply_pull(int worker, const protocol::WorkerPlan& plan) {
  state_.require_carried(plan);  // leaders and top-k come with Petrel and ASHL
  WorkerClock& clock = clocks_[static_cast<size_t>(worker)];
  if (clock.silent) {
    // The server sends and waits; a hung worker will never answer.
    if (clock.hung) inspector_.expect(worker, servers_free_at());
    return;
  }
  const double sent = servers_free_at();
  const double pulled = network_->send_from_servers(worker, model_bytes_, shard_fraction_, sent);
  state_.stats().add_bytes_from_server(static_cast<int64_t>(model_bytes_));
  clock.last_pull_seconds = pulled - sent;

  // The steps are computed now, on the model this reply carries; only their delivery waits.
  const int id = state_.pool().acquire();
  worker::RoundResult result = workers_[static_cast<size_t>(worker)]->run(
      plan, state_.server().model(), state_.current_lr(), state_.pool().buffer(id));

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
  clock.update_in_flight = id;
  inspector_.expect(worker, sent);
  schedule(computed, EventKind::PushReady, worker, id);
}

void SimEngine::send_update(int update_id) {
  protocol::UpdateInfo& info = state_.pool().at(update_id).info;
  const double push_bytes = model_bytes_;
  const double arrived = network_->send_to_servers(info.worker, push_bytes, shard_fraction_, now_);
  state_.stats().add_bytes_to_server(static_cast<int64_t>(push_bytes));
  info.comm_seconds =
      (arrived - now_) + clocks_[static_cast<size_t>(info.worker)].last_pull_seconds;
  schedule(arrived, EventKind::UpdateArrives, info.worker, update_id);
}

// A crashed worker's death is announced (the protocol stops waiting for it); a hung one just
// goes quiet, as a stuck process would, and only a stall inspector can notice.
void SimEngine::fail(int worker) {
  const auto failure =
      std::ranges::find(config_.cluster.failures, worker, &config::WorkerFailure::worker);
  WorkerClock& clock = clocks_[static_cast<size_t>(worker)];
  clock.silent = true;
  if (clock.update_in_flight >= 0) {
    state_.discard(clock.update_in_flight);
    clock.update_in_flight = -1;
    --updates_in_flight_;
  }
  const bool crash = failure->kind == "crash";
  clock.hung = !crash;
  state_.record(
      {crash ? "worker_failed" : "worker_hung", {{"worker", worker}, {"kind", failure->kind}}},
      now_);
  if (crash) {
    inspector_.settle(worker);
    state_.protocol().on_worker_failed(worker, *this);
  }
}

int64_t SimEngine::apply(const protocol::ApplyOrder& order) {
  const int64_t version = state_.apply(order);
  const double apply_rate = gbps_to_bytes_per_second(config_.cluster.apply_gbps);
  const double work_bytes = model_bytes_ * static_cast<double>(order.update_ids.size());
  for (size_t s = 0; s < shard_free_at_.size(); ++s) {
    shard_free_at_[s] =
        std::max(now_, shard_free_at_[s]) + work_bytes * shard_fraction_[s] / apply_rate;
  }
  return version;
}

void SimEngine::discard(int update_id) { state_.discard(update_id); }

void SimEngine::set_optimizer(const protocol::OptimizerOverride& settings) {
  state_.server().set_override(settings);
}

void SimEngine::record(const protocol::ProtocolEvent& event) { state_.record(event, now_); }

}  // namespace hetps::engine
