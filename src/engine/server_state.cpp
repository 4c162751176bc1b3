#include "engine/server_state.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "checkpoint/restoring.h"
#include "checkpoint/saved_integers.h"
#include "protocol/registry.h"

namespace hetps::engine {

std::unique_ptr<protocol::Protocol> make_protocol(const config::ProtocolConfig& config) {
  const protocol::ProtocolInfo* info = protocol::find_protocol(config.name);
  if (info == nullptr) {
    throw std::invalid_argument("protocol.name: unknown protocol '" + config.name +
                                "' (allowed: " + protocol::protocol_names() + ")");
  }
  return info->make(protocol::complete_params(*info, config.params));
}

server::ServerOptions server_options(const config::Config& config) {
  server::ServerOptions options;
  options.shards = config.cluster.servers;
  options.apply_threads = config.run.server_apply_threads;
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

namespace {

// What a protocol does in `start` before a restore: nothing of it is carried out, as the
// restored state already holds its consequences.
class DroppedActions : public protocol::Actions {
 public:
  explicit DroppedActions(int64_t version) : version_(version) {}
  int64_t apply(const protocol::ApplyOrder&) override { return version_; }
  void reply_pull(int, const protocol::WorkerPlan&) override {}
  void discard(int) override {}
  void set_optimizer(const protocol::OptimizerOverride&) override {}
  void record(const protocol::ProtocolEvent&) override {}
  int64_t version() const override { return version_; }

 private:
  int64_t version_;
};

std::vector<float> initial_model(model::Learner& learner) {
  std::vector<float> initial(learner.layout().size());
  learner.initial_parameters(initial);
  return initial;
}

server::ServerOptions local_server_options(const config::Config& config,
                                           const RemoteShards* remote) {
  server::ServerOptions options = server_options(config);
  if (remote != nullptr) options.only_shard = 0;
  return options;
}

}  // namespace

ServerState::ServerState(const config::Config& config, const data::DataSplit& data,
                         model::Learner& evaluator, RunListener& listener, RemoteShards* remote)
    : config_(config),
      data_(data),
      evaluator_(evaluator),
      listener_(listener),
      protocol_(make_protocol(config.protocol)),
      server_(std::make_unique<server::ParameterServer>(
          evaluator.layout(), initial_model(evaluator), local_server_options(config, remote))),
      pool_(evaluator.layout().size()),
      remote_(remote) {
  stats_.set_target(config.train.target_accuracy);
}

int64_t ServerState::apply(const protocol::ApplyOrder& order) {
  std::vector<const float*> payloads;
  payloads.reserve(order.update_ids.size());
  for (int id : order.update_ids) payloads.push_back(pool_.buffer(id).data());
  const int64_t version_before = server_->version();
  // The remote shards first, so that they apply while this one does; an order the local apply
  // would refuse must not reach them.
  if (remote_ != nullptr) {
    if (payloads.empty() || payloads.size() != order.weights.size()) {
      throw std::invalid_argument(fmt::format(
          "ServerState::apply: {} updates for {} weights (need one per weight, at least one)",
          payloads.size(), order.weights.size()));
    }
    remote_->apply(order, stats_.samples());
  }
  server_->apply(order, payloads, stats_.samples());
  for (int id : order.update_ids) {
    const protocol::UpdateInfo& info = pool_.at(id).info;
    // A leader's merge counts for each contributor, at the leader's staleness: a round's
    // replies are made together, with no apply between them, so its members pulled the
    // leader's version (handed on by the leader, or sent by the server where it answers one).
    stats_.on_applied(version_before - info.base_version, info.samples, info.train_loss,
                      1 + static_cast<int64_t>(info.members.size()));
    pool_.release(id);
  }
  return server_->version();
}

void ServerState::discard(int update_id) {
  if (remote_ != nullptr) remote_->discard(update_id);
  pool_.release(update_id);
}

void ServerState::set_optimizer(const protocol::OptimizerOverride& settings) {
  if (remote_ != nullptr) remote_->set_override(settings);
  server_->set_override(settings);
}

protocol::WorkerPlan ServerState::within_budget(protocol::WorkerPlan plan) const {
  if (plan.kind != protocol::UpdateKind::Delta) return plan;
  const int64_t left = std::max<int64_t>(config_.train.max_samples - stats_.samples(), 0);
  // ceil(left / (workers · batch)): the worker's share of what is left, in whole batches.
  const int64_t per_round = int64_t{config_.cluster.workers} * config_.data.batch_size;
  const int64_t steps = std::max<int64_t>(left / per_round + (left % per_round != 0 ? 1 : 0), 1);
  if (steps < plan.max_local_steps) plan.max_local_steps = static_cast<int>(steps);
  return plan;
}

void ServerState::check_plan(int worker, const protocol::WorkerPlan& plan) const {
  const auto fail = [&](const std::string& why) {
    throw std::invalid_argument(
        fmt::format("protocol.name = \"{}\" on engine = \"{}\": the plan for "
                    "worker {} {}",
                    config_.protocol.name, config_.engine, worker, why));
  };
  const auto is_other_worker = [&](int id) {
    return id >= 0 && id < config_.cluster.workers && id != worker;
  };
  if (!(plan.keep_ratio > 0 && plan.keep_ratio <= 1)) {
    fail(
        fmt::format("has keep_ratio = {}; allowed: (0, 1], the fraction of a delta's entries "
                    "sent (1: dense)",
                    plan.keep_ratio));
  }
  if (plan.keep_ratio < 1 && plan.kind == protocol::UpdateKind::Gradient) {
    fail(
        fmt::format("asks for top-k compression (keep_ratio = {}) of a gradient; only model "
                    "deltas (update kind Delta) are compressed",
                    plan.keep_ratio));
  }
  // A leader merges its members' dense updates (worker::merge_updates) and pushes the merge.
  if (plan.keep_ratio < 1 && (plan.send_to != protocol::kServer || !plan.gather_from.empty())) {
    fail(
        fmt::format("asks for top-k compression (keep_ratio = {}) in a leader's community; "
                    "compressed deltas go to the server, leaders carry dense updates only",
                    plan.keep_ratio));
  }
  if (!plan.data_shares.empty()) {
    const auto& shares = plan.data_shares;
    if (shares.size() != static_cast<size_t>(config_.cluster.workers)) {
      fail(fmt::format("has {} data shares; expected one per worker ({})", shares.size(),
                       config_.cluster.workers));
    }
    double sum = 0;
    for (double share : shares) {
      if (!(share >= 0 && share <= 1)) {
        fail(fmt::format("has a data share of {}; allowed: [0, 1]", share));
      }
      sum += share;
    }
    if (std::abs(sum - 1) > 1e-9) fail(fmt::format("has data shares summing to {}, not 1", sum));
    // On mpi the shares travel with the server's own replies, not with the ones a leader
    // hands on.
    if (plan.send_to != protocol::kServer || !plan.gather_from.empty()) {
      fail(
          "re-cuts the data shares in a leader's community; data shares go with plans "
          "that neither lead nor follow a leader");
    }
  }
  if (plan.send_to != protocol::kServer && !is_other_worker(plan.send_to)) {
    fail(fmt::format("sends its update to worker {}, which is not another worker", plan.send_to));
  }
  if (plan.gather_from.empty()) return;
  if (plan.send_to != protocol::kServer) {
    fail(fmt::format("both leads and sends to leader {}: a leader pushes to the server",
                     plan.send_to));
  }
  for (auto member = plan.gather_from.begin(); member != plan.gather_from.end(); ++member) {
    if (!is_other_worker(*member)) {
      fail(fmt::format("gathers from worker {}, which is not another worker", *member));
    }
    if (std::find(plan.gather_from.begin(), member, *member) != member) {
      fail(fmt::format("gathers from worker {} twice", *member));
    }
  }
}

void ServerState::record(const protocol::ProtocolEvent& event, double time) {
  nlohmann::json record = {{"type", event.type}, {"time", time}};
  if (event.details.is_object()) record.update(event.details);
  listener_.on_event(record);
}

void ServerState::report_stalls(const StallInspector::Findings& findings, double time) {
  for (const std::string& warning : findings.warnings) {
    record({"stall_warning", {{"message", warning}}}, time);
  }
  if (findings.timeout) {
    record({"stalled", {{"message", *findings.timeout}}}, time);
    throw StallError(*findings.timeout);
  }
}

void ServerState::evaluate(double time) {
  if (remote_ != nullptr) remote_->fetch_model(*server_);
  const data::Dataset& test = data_.test;
  model::Evaluation result = evaluator_.evaluate(
      server_->model(), model::Batch{test.inputs.data(), test.labels.data(), test.size()});
  listener_.on_eval(stats_.evaluation(time, server_->version(), result.accuracy, result.loss,
                                      params::hash_parameters(server_->model())));
  if (!std::isfinite(result.loss) && !diverged_) {
    diverged_ = true;
    record({"diverged", {{"updates", server_->version()}}}, time);
  }
  evaluated_version_ = server_->version();
  evaluated_time_ = time;
}

metrics::Summary ServerState::finish(double time, const std::string& stop_reason,
                                     const std::string& engine,
                                     std::chrono::steady_clock::time_point wall_start) {
  // The last record describes the final model, whatever the event that ended the run.
  if (server_->version() != evaluated_version_ || time != evaluated_time_) evaluate(time);
  metrics::Summary summary;
  summary.protocol = config_.protocol.name;
  summary.run_name = config_.run.name;
  summary.engine = engine;
  summary.workers = config_.cluster.workers;
  summary.seed = config_.seed;
  stats_.fill(summary);
  summary.stop_reason = stop_reason;
  summary.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return summary;
}

nlohmann::json ServerState::save_state() const {
  nlohmann::json state;
  state["workers"] = config_.cluster.workers;
  state["protocol"] = protocol_->save_state();
  state["server"] = server_->save_state();
  state["pool"] = pool_.save_state();
  state["statistics"] = stats_.save_state();
  state["evaluated_version"] = evaluated_version_;
  state["evaluated_time"] = evaluated_time_;
  state["diverged"] = diverged_;
  return state;
}

void ServerState::restore_state(const nlohmann::json& state) {
  checkpoint::restoring("the server state", [&] {
    // Not every protocol's state knows its worker count.
    const int workers = checkpoint::integer<int>(state.at("workers"));
    if (workers != config_.cluster.workers) {
      throw checkpoint::CheckpointError(
          fmt::format("holds {} workers, expected {}", workers, config_.cluster.workers));
    }
    const auto evaluated_version = checkpoint::integer<int64_t>(state.at("evaluated_version"));
    const auto evaluated_time = state.at("evaluated_time").get<double>();
    // Absent from the checkpoints of hetps before 2026-12-03, which logged no `diverged`.
    const bool diverged = state.value("diverged", false);
    server_->restore_state(state.at("server"));
    pool_.restore_state(state.at("pool"));
    stats_.restore_state(state.at("statistics"));
    checkpoint::restoring(fmt::format("protocol '{}'", protocol_->name()), [&] {
      DroppedActions dropped(server_->version());
      protocol_->start(protocol::run_shape(config_), dropped);
      protocol_->restore_state(state.at("protocol"));
    });
    evaluated_version_ = evaluated_version;
    evaluated_time_ = evaluated_time;
    diverged_ = diverged;
  });
}

}  // namespace hetps::engine
