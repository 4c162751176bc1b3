#include "protocol/sapus.h"

#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "protocol/hybrids.h"
#include "protocol/param_specs.h"
#include "protocol/sapus_rules.h"

namespace hetps::protocol {

Sapus::Sapus(const SapusOptions& options)
    : options_(options), threshold_(options.threshold, options.theta) {}

void Sapus::start(const RunShape& shape, Actions& actions) {
  features_.emplace(shape.workers, options_.perf_window);
  last_push_.assign(static_cast<size_t>(shape.workers), std::nullopt);
  actions.record({"threshold", {{"theta", threshold_.theta()}, {"reason", "start"}}});
}

WorkerPlan Sapus::plan_for(int worker) const {
  WorkerPlan plan;
  plan.kind = UpdateKind::Delta;
  plan.change_threshold = threshold_.theta();
  plan.max_local_steps =
      features_->profiled(worker)
          ? delay_bound(features_->mean_step_seconds(worker),
                        features_->mean_round_trip_seconds(worker), options_.rho, options_.tau_cap)
          : 1;
  return plan;
}

void Sapus::on_pull_request(int worker, Actions& actions) {
  actions.reply_pull(worker, plan_for(worker));
}

void Sapus::on_update(const UpdateInfo& update, Actions& actions) {
  const int64_t staleness = actions.version() - update.base_version;
  const double weight = merge_weight(options_.alpha, staleness);
  actions.apply({UpdateKind::Delta, {update.id}, {weight}});

  // A first push is not measured: on mpi its round trip is incomplete (the first pull is not
  // timed), and every engine measures alike.
  if (update.clock > 1 && update.steps > 0) {
    features_->observe(update.worker, update.compute_seconds / update.steps, update.comm_seconds);
  }
  auto& last = last_push_[static_cast<size_t>(update.worker)];
  nlohmann::json push = {{"worker", update.worker},
                         {"steps", update.steps},
                         {"staleness", staleness},
                         {"weight", weight}};
  if (last) push["interval_s"] = update.now - *last;
  last = update.now;
  actions.record({"push", std::move(push)});

  const double before = threshold_.theta();
  if (const auto drop = threshold_.observe(update.train_loss)) {
    actions.record({"threshold",
                    {{"theta", threshold_.theta()},
                     {"previous", before},
                     {"relative_drop", *drop},
                     {"reason", "window"}}});
  }
}

// Nothing waits for a worker in SaPus: a dead one simply pushes no more.
void Sapus::on_worker_failed(int /*worker*/, Actions& /*actions*/) {}

nlohmann::json Sapus::save_state() const {
  nlohmann::json last_push = nlohmann::json::array();
  for (const auto& time : last_push_) last_push.push_back(time ? nlohmann::json(*time) : nullptr);
  return {{"threshold", threshold_.save_state()},
          {"features", features_->save_state()},
          {"last_push", last_push}};
}

void Sapus::restore_state(const nlohmann::json& state) {
  const auto& last_push = state.at("last_push");
  if (last_push.size() != last_push_.size()) {
    throw std::invalid_argument(
        fmt::format("sapus: the saved state holds {} workers but this run has {}", last_push.size(),
                    last_push_.size()));
  }
  // Into copies first: a state refused halfway must change nothing.
  WorkerFeatures features = *features_;
  features.restore_state(state.at("features"));
  ThresholdWindow threshold = threshold_;
  threshold.restore_state(state.at("threshold"));
  *features_ = std::move(features);
  threshold_ = std::move(threshold);
  for (size_t w = 0; w < last_push_.size(); ++w) {
    last_push_[w] =
        last_push[w].is_null() ? std::nullopt : std::optional<double>(last_push[w].get<double>());
  }
}

ProtocolInfo sapus_protocol() {
  return ProtocolInfo{
      "sapus",
      "SaPus: event-triggered asynchronous local SGD; pushes when the model moved more than a "
      "loss-adapted threshold or after a delay bound from a performance model, merged with "
      "staleness weights",
      // Defaults: the sweep of docs/protocols/sapus.md (scripts/sweep_sapus.py), frozen.
      {
          number_param("theta", 1e-4, "the initial push threshold θ on ‖w − w_pull‖² / ‖w_pull‖²",
                       1e-12, 1e6),
          number_param("theta_min", 1e-4, "the lowest θ", 1e-12, 1e6),
          number_param("theta_max", 1e-2, "the highest θ", 1e-12, 1e6),
          number_param("theta_up", 2, "θ's factor when the loss falls fast", 1, 1e6),
          number_param("theta_down", 0.5, "θ's factor when the loss falls slowly", 1e-9, 1),
          number_param("fast_drop", 0.05, "a window's relative loss drop above which θ relaxes", 0,
                       1e6),
          number_param("slow_drop", -1, "a window's relative loss drop below which θ tightens",
                       -1e6, 1e6),
          number_param("window", 16, "pushes per global-loss window", 2, 1e6, true),
          number_param("rho", 50, "ρ: compute about ρ times the round trip between two pushes",
                       1e-9, 1e6),
          number_param("tau_cap", 64, "the most local steps between two pushes", 1, 1e6, true),
          number_param("perf_window", 10, "samples in each worker's step and round-trip windows", 1,
                       1e6, true),
          number_param("alpha", 1, "α: a fresh delta's merge weight; d updates stale: α/(1+d)",
                       1e-9, 1),
      },
      [](const config::ProtocolParams& params) {
        SapusOptions options;
        options.theta = number(params, "theta");
        options.threshold.theta_min = number(params, "theta_min");
        options.threshold.theta_max = number(params, "theta_max");
        options.threshold.theta_up = number(params, "theta_up");
        options.threshold.theta_down = number(params, "theta_down");
        options.threshold.fast_drop = number(params, "fast_drop");
        options.threshold.slow_drop = number(params, "slow_drop");
        options.threshold.window = static_cast<int>(number(params, "window"));
        options.rho = number(params, "rho");
        options.tau_cap = static_cast<int>(number(params, "tau_cap"));
        options.perf_window = static_cast<int>(number(params, "perf_window"));
        options.alpha = number(params, "alpha");
        return std::make_unique<Sapus>(options);
      }};
}

}  // namespace hetps::protocol
