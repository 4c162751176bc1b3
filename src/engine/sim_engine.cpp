#include "engine/sim_engine.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

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
      cluster_(config.cluster, config.seed) {
  const auto& layout = learner_->layout();
  network_ = std::make_unique<SimNetwork>(cluster_, config.cluster.servers);
  model_bytes_ = static_cast<double>(layout.bytes());
  for (const auto& range : state_.server().shard_ranges()) {
    shard_fraction_.push_back(static_cast<double>(range.size()) /
                              static_cast<double>(layout.size()));
  }
  shard_free_at_.assign(shard_fraction_.size(), 0.0);
  step_work_seconds_ =
      learner_->flops_per_sample() * config.data.batch_size / (config.cluster.worker_gflops * 1e9);

  const int workers = config.cluster.workers;
  for (int w = 0; w < workers; ++w)
    workers_.push_back(make_worker(config, data.train, w, *learner_));
  clocks_.resize(static_cast<size_t>(workers));
}

SimEngine::~SimEngine() = default;

void SimEngine::schedule(double time, EventKind kind, int update_id) {
  if (kind != EventKind::Evaluation) ++updates_in_flight_;
  events_.push(Event{time, sequence_++, kind, update_id});
}

metrics::Summary SimEngine::run() {
  const auto wall_start = std::chrono::steady_clock::now();
  const int workers = config_.cluster.workers;
  state_.protocol().start(
      protocol::RunShape{workers, config_.train.max_samples, config_.data.batch_size}, *this);
  for (int w = 0; w < workers; ++w) state_.protocol().on_pull_request(w, *this);

  state_.evaluate(0.0);
  schedule(config_.train.eval_interval, EventKind::Evaluation);
  std::string stop_reason = "stalled";  // no update in flight and none to come
  while (updates_in_flight_ > 0) {
    Event event = events_.top();
    events_.pop();
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
  return state_.finish(now_, stop_reason, "sim", wall_start);
}

void SimEngine::deliver(int update_id) {
  protocol::UpdateInfo info = state_.pool().at(update_id).info;
  info.now = now_;
  state_.protocol().on_update(info, *this);
  state_.protocol().on_pull_request(info.worker, *this);
}

double SimEngine::servers_free_at() const {
  double free_at = now_;
  for (double t : shard_free_at_) free_at = std::max(free_at, t);
  return free_at;
}

double SimEngine::send_to_servers(int worker, double bytes, double time) {
  double arrival = time;
  for (size_t s = 0; s < shard_fraction_.size(); ++s) {
    arrival = std::max(arrival, network_->send(worker, network_->server_node(static_cast<int>(s)),
                                               bytes * shard_fraction_[s], time));
  }
  return arrival;
}

double SimEngine::send_from_servers(int worker, double bytes, double time) {
  double arrival = time;
  for (size_t s = 0; s < shard_fraction_.size(); ++s) {
    arrival = std::max(arrival, network_->send(network_->server_node(static_cast<int>(s)), worker,
                                               bytes * shard_fraction_[s], time));
  }
  return arrival;
}

void SimEngine::reply_pull(int worker, const protocol::WorkerPlan& plan) {
  if (plan.send_to != protocol::kServer || plan.keep_ratio != 1.0) {
    // Leader aggregation and top-k come with the protocols that need them (Petrel, ASHL).
    throw std::logic_error("the simulator does not yet carry updates to leaders or compress them");
  }
  WorkerClock& clock = clocks_[static_cast<size_t>(worker)];
  const double sent = servers_free_at();
  const double pulled = send_from_servers(worker, model_bytes_, sent);
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
  schedule(computed, EventKind::PushReady, id);
}

void SimEngine::send_update(int update_id) {
  protocol::UpdateInfo& info = state_.pool().at(update_id).info;
  const double push_bytes = model_bytes_;
  const double arrived = send_to_servers(info.worker, push_bytes, now_);
  state_.stats().add_bytes_to_server(static_cast<int64_t>(push_bytes));
  info.comm_seconds =
      (arrived - now_) + clocks_[static_cast<size_t>(info.worker)].last_pull_seconds;
  schedule(arrived, EventKind::UpdateArrives, update_id);
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
