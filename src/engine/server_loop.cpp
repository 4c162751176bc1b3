#include "engine/server_loop.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace hetps::engine {

ServerLoop::ServerLoop(const config::Config& config, const data::DataSplit& data,
                       model::Learner& evaluator, RunListener& listener, Engine& engine,
                       std::function<double()> clock,
                       std::function<std::string(int worker)> describe_worker)
    : config_(config),
      state_(config, data, evaluator, listener),
      engine_(engine),
      clock_(std::move(clock)),
      describe_worker_(std::move(describe_worker)),
      inspector_(config.run.stall_warning_s, config.run.stall_timeout_s, describe_worker_),
      owed_(static_cast<size_t>(config.cluster.workers), -1),
      gone_(static_cast<size_t>(config.cluster.workers), false) {}

void ServerLoop::start() {
  state_.protocol().start(protocol::RunShape{config_.cluster.workers, config_.train.max_samples,
                                             config_.data.batch_size},
                          *this);
  engine_.evaluate(state_, 0.0);
}

std::string ServerLoop::serve() {
  double next_evaluation = config_.train.eval_interval;
  for (;;) {
    const double wake =
        std::min({next_evaluation, inspector_.next_check(), config_.train.max_time});
    engine_.serve_one(wake, *this);
    const double time = now();
    if (time >= config_.train.max_time) return "max_time";
    if (state_.budget_spent()) return "max_samples";
    if (time >= next_evaluation) {
      engine_.evaluate(state_, time);
      if (config_.train.stop_at_target && state_.target_reached()) return "target";
      next_evaluation = time + config_.train.eval_interval;
    }
    state_.report_stalls(inspector_.check(time), time);
    if (every_worker_gone()) return "stalled";
  }
}

void ServerLoop::on_first_pull(int worker) { state_.protocol().on_pull_request(worker, *this); }

void ServerLoop::on_update(protocol::UpdateInfo info) {
  info.now = now();
  owed_[static_cast<size_t>(info.worker)] = -1;
  inspector_.settle(info.worker);
  state_.pool().at(info.id).info = info;
  state_.stats().add_bytes_to_server(state_.model_bytes());
  state_.protocol().on_update(info, *this);
  state_.protocol().on_pull_request(info.worker, *this);
}

void ServerLoop::on_worker_gone(int worker, const std::string& error) {
  if (!error.empty()) {
    throw std::runtime_error(fmt::format("{} failed: {}", describe_worker_(worker), error));
  }
  const auto w = static_cast<size_t>(worker);
  gone_[w] = true;
  inspector_.settle(worker);
  if (owed_[w] >= 0) state_.discard(owed_[w]);
  owed_[w] = -1;
  state_.record({"worker_failed", {{"worker", worker}, {"kind", "crash"}}}, now());
  state_.protocol().on_worker_failed(worker, *this);
}

void ServerLoop::reply_pull(int worker, const protocol::WorkerPlan& plan) {
  state_.check_plan(worker, plan);
  if (plan.send_to != protocol::kServer || !plan.gather_from.empty()) {
    throw std::invalid_argument(fmt::format(
        "protocol.name = \"{}\": engine = \"{}\" does not carry updates to leaders yet",
        config_.protocol.name, config_.engine));
  }
  const auto w = static_cast<size_t>(worker);
  if (gone_[w]) return;
  const int id = state_.pool().acquire();
  const double sent = now();
  const int64_t version = state_.server().version();
  state_.stats().add_bytes_from_server(state_.model_bytes());
  owed_[w] = id;
  inspector_.expect(worker, sent);
  engine_.send(Reply{worker, plan, snapshots_.at(state_.server().model(), version), version, id,
                     state_.pool().buffer(id), state_.current_lr(), sent});
}

bool ServerLoop::every_worker_gone() const {
  return std::find(gone_.begin(), gone_.end(), false) == gone_.end();
}

}  // namespace hetps::engine
