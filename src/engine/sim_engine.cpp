#include "engine/sim_engine.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "data/partition.h"
#include "protocol/registry.h"

namespace hetps::engine {

namespace {

double gbps_to_bytes_per_second(double gbps) { return gbps * 1e9 / 8.0; }

server::ServerOptions server_options(const config::Config& config) {
  server::ServerOptions options;
  options.shards = config.cluster.servers;
  options.sgd = {config.train.nesterov, config.train.weight_decay};
  options.momentum = config.train.momentum;
  options.schedule = {config.train.lr,
                      config.train.lr_schedule,
                      config.train.lr_warmup_samples,
                      config.train.lr_step_samples,
                      config.train.lr_step_gamma,
                      config.train.max_samples};
  return options;
}

std::unique_ptr<protocol::Protocol> make_protocol(const config::ProtocolConfig& config) {
  const protocol::ProtocolInfo* info = protocol::find_protocol(config.name);
  if (info == nullptr) {
    throw std::invalid_argument("protocol.name: unknown protocol '" + config.name +
                                "' (allowed: " + protocol::protocol_names() + ")");
  }
  return info->make(protocol::complete_params(*info, config.params));
}

}  // namespace

SimEngine::SimEngine(const config::Config& config, const data::DataSplit& data,
                     model::Learner& learner, RunListener& listener)
    : config_(config),
      data_(data),
      learner_(learner),
      listener_(listener),
      cluster_(config.cluster, config.seed),
      protocol_(make_protocol(config.protocol)),
      pool_(learner.layout().size()) {
  const auto& layout = learner_.layout();
  std::vector<float> initial(layout.size());
  learner_.initial_parameters(initial);
  server_ =
      std::make_unique<server::ParameterServer>(layout, std::move(initial), server_options(config));
  network_ = std::make_unique<SimNetwork>(cluster_, config.cluster.servers);
  model_bytes_ = static_cast<double>(layout.bytes());
  for (const auto& range : server_->shard_ranges()) {
    shard_fraction_.push_back(static_cast<double>(range.size()) /
                              static_cast<double>(layout.size()));
  }
  shard_free_at_.assign(shard_fraction_.size(), 0.0);
  step_work_seconds_ =
      learner_.flops_per_sample() * config.data.batch_size / (config.cluster.worker_gflops * 1e9);

  const int workers = config.cluster.workers;
  auto shards =
      data::partition_samples(data.train.labels, data.train.classes, workers, config.data.partition,
                              config.data.classes_per_worker, config.seed);
  worker::WorkerOptions options{config.data.batch_size,
                                config.train.momentum,
                                {config.train.nesterov, config.train.weight_decay}};
  for (int w = 0; w < workers; ++w) {
    workers_.push_back(std::make_unique<worker::Worker>(
        w, learner_, data.train, std::move(shards[static_cast<size_t>(w)]), config.seed, options));
  }
  clocks_.resize(static_cast<size_t>(workers));
  stats_.set_target(config.train.target_accuracy);
}

SimEngine::~SimEngine() = default;

void SimEngine::schedule(double time, EventKind kind, int update_id) {
  if (kind != EventKind::Evaluation) ++updates_in_flight_;
  events_.push(Event{time, sequence_++, kind, update_id});
}

metrics::Summary SimEngine::run() {
  const auto wall_start = std::chrono::steady_clock::now();
  const int workers = config_.cluster.workers;
  protocol_->start(protocol::RunShape{workers, config_.train.max_samples, config_.data.batch_size},
                   *this);
  for (int w = 0; w < workers; ++w) protocol_->on_pull_request(w, *this);

  evaluate(0.0);
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
      evaluate(now_);
      if (config_.train.stop_at_target && stats_.target_reached()) {
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
    if (stats_.samples() >= config_.train.max_samples) {
      stop_reason = "max_samples";
      break;
    }
  }
  // The last record describes the final model, whatever the event that ended the run.
  if (server_->version() != evaluated_version_ || now_ != evaluated_time_) evaluate(now_);

  metrics::Summary summary;
  summary.protocol = config_.protocol.name;
  summary.run_name = config_.run.name;
  summary.engine = "sim";
  summary.workers = workers;
  summary.seed = config_.seed;
  stats_.fill(summary);
  summary.stop_reason = stop_reason;
  summary.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return summary;
}

void SimEngine::evaluate(double time) {
  const data::Dataset& test = data_.test;
  model::Evaluation result = learner_.evaluate(
      server_->model(), model::Batch{test.inputs.data(), test.labels.data(), test.size()});
  listener_.on_eval(stats_.evaluation(time, server_->version(), result.accuracy, result.loss,
                                      params::hash_parameters(server_->model())));
  evaluated_version_ = server_->version();
  evaluated_time_ = time;
}

void SimEngine::deliver(int update_id) {
  protocol::UpdateInfo info = pool_.at(update_id).info;
  info.now = now_;
  protocol_->on_update(info, *this);
  protocol_->on_pull_request(info.worker, *this);
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
  stats_.add_bytes_from_server(static_cast<int64_t>(model_bytes_));
  clock.last_pull_seconds = pulled - sent;

  // The steps are computed now, on the model this reply carries; only their delivery waits.
  const int id = pool_.acquire();
  const double lr = server_->current_lr(stats_.samples());
  worker::RoundResult result =
      workers_[static_cast<size_t>(worker)]->run(plan, server_->model(), lr, pool_.buffer(id));

  double computed = pulled;
  for (int s = 0; s < result.steps; ++s) {
    const double work = step_work_seconds_ * cluster_.step_noise(worker, clock.steps++);
    computed = cluster_.compute_end(worker, computed, work);
  }
  protocol::UpdateInfo& info = pool_.at(id).info;
  info.id = id;
  info.worker = worker;
  info.kind = plan.kind;
  info.base_version = server_->version();
  info.clock = ++clock.pushes;
  info.steps = result.steps;
  info.samples = result.samples;
  info.train_loss = result.mean_loss;
  info.compute_seconds = computed - pulled;
  schedule(computed, EventKind::PushReady, id);
}

void SimEngine::send_update(int update_id) {
  protocol::UpdateInfo& info = pool_.at(update_id).info;
  const double push_bytes = model_bytes_;
  const double arrived = send_to_servers(info.worker, push_bytes, now_);
  stats_.add_bytes_to_server(static_cast<int64_t>(push_bytes));
  info.comm_seconds =
      (arrived - now_) + clocks_[static_cast<size_t>(info.worker)].last_pull_seconds;
  schedule(arrived, EventKind::UpdateArrives, update_id);
}

int64_t SimEngine::apply(const protocol::ApplyOrder& order) {
  std::vector<const float*> payloads;
  payloads.reserve(order.update_ids.size());
  for (int id : order.update_ids) payloads.push_back(pool_.buffer(id).data());
  const int64_t version_before = server_->version();
  server_->apply(order, payloads, stats_.samples());
  for (int id : order.update_ids) {
    const protocol::UpdateInfo& info = pool_.at(id).info;
    stats_.on_applied(version_before - info.base_version, info.samples, info.train_loss);
    pool_.release(id);
  }
  const double apply_rate = gbps_to_bytes_per_second(config_.cluster.apply_gbps);
  const double work_bytes = model_bytes_ * static_cast<double>(order.update_ids.size());
  for (size_t s = 0; s < shard_free_at_.size(); ++s) {
    shard_free_at_[s] =
        std::max(now_, shard_free_at_[s]) + work_bytes * shard_fraction_[s] / apply_rate;
  }
  return server_->version();
}

void SimEngine::discard(int update_id) { pool_.release(update_id); }

void SimEngine::set_optimizer(const protocol::OptimizerOverride& settings) {
  server_->set_override(settings);
}

void SimEngine::record(const protocol::ProtocolEvent& event) {
  nlohmann::json record = {{"type", event.type}, {"time", now_}};
  if (event.details.is_object()) record.update(event.details);
  listener_.on_event(record);
}

}  // namespace hetps::engine
