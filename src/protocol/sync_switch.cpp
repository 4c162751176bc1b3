#include "protocol/sync_switch.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "checkpoint/saved_integers.h"
#include "protocol/hybrids.h"
#include "protocol/param_specs.h"

namespace hetps::protocol {

double budget_in_bsp_steps(int64_t budget_steps, const RunShape& shape) {
  return budget_steps > 0
             ? static_cast<double>(budget_steps)
             : static_cast<double>(shape.max_samples) / (shape.workers * shape.batch_size);
}

int64_t bsp_rounds_before_switch(double bsp_fraction, int64_t budget_steps, const RunShape& shape) {
  return bsp_fraction >= 1 ? std::numeric_limits<int64_t>::max()
                           : std::llround(bsp_fraction * budget_in_bsp_steps(budget_steps, shape));
}

SyncSwitch::SyncSwitch(SyncSwitchOptions options)
    : options_(options), bsp_("sync_switch", WorkerPlan{}), detector_(0, options.straggler) {}

void SyncSwitch::start(const RunShape& shape, Actions& actions) {
  shape_ = shape;
  detector_ = StragglerDetector(shape.workers, options_.straggler);
  bsp_.start(shape, actions);
  bsp_budget_ = bsp_rounds_before_switch(options_.bsp_fraction, options_.budget_steps, shape);
  if (bsp_budget_ == 0) leave_bsp("budget", actions);
}

void SyncSwitch::on_pull_request(int worker, Actions& actions) {
  if (phase_ == Phase::Bsp) {
    bsp_.on_pull_request(worker, actions);
  } else {
    actions.reply_pull(worker, WorkerPlan{});
  }
}

void SyncSwitch::on_update(const UpdateInfo& update, Actions& actions) {
  pull_seconds_sum_ += update.comm_seconds / 2;
  ++pulls_measured_;
  if (phase_ == Phase::Bsp) {
    bsp_.on_update(update, actions);
    if (bsp_.rounds_closed() >= bsp_budget_) leave_bsp("budget", actions);
  } else {
    apply_asp(update.id, actions);
  }
  if (options_.online != OnlinePolicy::None) watch_stragglers(update, actions);
}

void SyncSwitch::on_worker_failed(int worker, Actions& actions) {
  // In BSP the barrier shrinks; in ASP nothing waits for anyone. A dead straggler is gone.
  bsp_.on_worker_failed(worker, actions);
  detector_.forget(worker);
  if (phase_ == Phase::Bsp && bsp_.rounds_closed() >= bsp_budget_) {
    leave_bsp("budget", actions);
  } else if (may_return_to_bsp()) {
    return_to_bsp(actions);
  }
}

bool SyncSwitch::may_return_to_bsp() const {
  return phase_ == Phase::Asp && asp_reason_ == "straggler" && detector_.stragglers() == 0 &&
         bsp_.rounds_closed() < bsp_budget_;
}

void SyncSwitch::leave_bsp(const std::string& reason, Actions& actions) {
  // A budget of no BSP round starts the run in ASP: nothing is switched, nothing is charged.
  const double overhead = bsp_budget_ > 0 ? actions.charge_switch() : 0;
  SynchronousRounds::AbandonedRound abandoned = bsp_.abandon_round();
  phase_ = Phase::Asp;
  asp_reason_ = reason;
  asp_updates_ = 0;
  optimizer_ = asp_optimizer(options_.settings, shape_.workers, shape_.momentum, 0);
  actions.set_optimizer(optimizer_);
  record_phase("bsp", "asp", reason, overhead, actions);
  for (const auto& [worker, id] : abandoned.contributions) apply_asp(id, actions);
  for (int worker : abandoned.held_pulls) actions.reply_pull(worker, WorkerPlan{});
}

void SyncSwitch::return_to_bsp(Actions& actions) {
  const double overhead = actions.charge_switch();
  phase_ = Phase::Bsp;
  optimizer_ = OptimizerOverride{};
  actions.set_optimizer(optimizer_);
  record_phase("asp", "bsp", "straggler_gone", overhead, actions);
}

void SyncSwitch::apply_asp(int update_id, Actions& actions) {
  actions.apply(ApplyOrder{UpdateKind::Gradient, {update_id}, {1.0}});
  ++asp_updates_;
  const OptimizerOverride next =
      asp_optimizer(options_.settings, shape_.workers, shape_.momentum, asp_updates_);
  if (next.lr_scale != optimizer_.lr_scale || next.momentum != optimizer_.momentum) {
    optimizer_ = next;
    actions.set_optimizer(optimizer_);
  }
}

void SyncSwitch::watch_stragglers(const UpdateInfo& update, Actions& actions) {
  const double step_seconds = update.compute_seconds / std::max(update.steps, 1);
  const auto change = detector_.observe(update.worker, step_seconds, update.now);
  if (change == StragglerDetector::Change::None) return;
  nlohmann::json details = {{"worker", update.worker},
                            {"slowdown", detector_.slowdown(update.worker)},
                            {"profiled_step_s", detector_.profiled_seconds(update.worker)}};
  if (change == StragglerDetector::Change::Cleared) {
    details["state"] = "cleared";
    actions.record({"straggler", details});
    if (may_return_to_bsp()) return_to_bsp(actions);
    return;
  }
  details["state"] = "detected";
  bool leave = phase_ == Phase::Bsp;
  if (leave && options_.online == OnlinePolicy::Elastic) {
    leave = worth_leaving_for(update.worker, details);
  }
  actions.record({"straggler", details});
  if (leave) leave_bsp("straggler", actions);
}

bool SyncSwitch::worth_leaving_for(int straggler, nlohmann::json& reasoning) const {
  double slowest = 0;  // T: BSP's round time without the straggler's slowdown
  for (int w = 0; w < shape_.workers; ++w) {
    slowest = std::max(slowest, detector_.profiled_seconds(w));
  }
  const double slowed =
      std::max(slowest, detector_.slowdown(straggler) * detector_.profiled_seconds(straggler));
  const double episode = detector_.mean_episode_seconds(options_.expected_episode_s);
  const double expected_loss = slowed > 0 ? episode * (1 - slowest / slowed) : 0;
  const double overhead = switch_overhead();
  reasoning["expected_loss_s"] = expected_loss;
  reasoning["switch_overhead_s"] = overhead;
  return expected_loss > 2 * overhead;
}

double SyncSwitch::switch_overhead() const {
  if (options_.switch_overhead_s > 0 || pulls_measured_ == 0) return options_.switch_overhead_s;
  return pull_seconds_sum_ / static_cast<double>(pulls_measured_);
}

void SyncSwitch::record_phase(const std::string& from, const std::string& to,
                              const std::string& reason, double overhead_s,
                              Actions& actions) const {
  actions.record(
      {"phase",
       {{"from", from},
        {"to", to},
        {"reason", reason},
        {"overhead_s", overhead_s},
        {"bsp_rounds", bsp_.rounds_closed()},
        {"lr_scale", optimizer_.lr_scale},
        {"momentum", optimizer_.momentum >= 0 ? optimizer_.momentum : shape_.momentum}}});
}

nlohmann::json SyncSwitch::save_state() const {
  return {{"shape",
           {{"workers", shape_.workers},
            {"max_samples", shape_.max_samples},
            {"batch_size", shape_.batch_size},
            {"momentum", shape_.momentum},
            {"seed", shape_.seed}}},
          {"bsp", bsp_.save_state()},
          {"detector", detector_.save_state()},
          {"phase", phase_ == Phase::Bsp ? "bsp" : "asp"},
          {"asp_reason", asp_reason_},
          {"bsp_budget", bsp_budget_},
          {"asp_updates", asp_updates_},
          {"optimizer", {{"lr_scale", optimizer_.lr_scale}, {"momentum", optimizer_.momentum}}},
          {"pull_seconds_sum", pull_seconds_sum_},
          {"pulls_measured", pulls_measured_}};
}

void SyncSwitch::restore_state(const nlohmann::json& state) {
  const auto& shape = state.at("shape");
  const auto workers = checkpoint::integer<int>(shape.at("workers"));
  // The detector is sized by the shape's worker count: one its own state does not hold would
  // size it by a number nothing bounds (found by fuzz/checkpoint.cpp).
  const size_t detected = state.at("detector").at("workers").size();
  if (workers < 1 || static_cast<size_t>(workers) != detected) {
    throw std::invalid_argument(
        fmt::format("sync_switch: the saved shape holds {} workers, its straggler detector {}; "
                    "expected the same count, at least 1",
                    workers, detected));
  }
  // Once started (the detector is sized then), the engine names this run's workers, by which
  // the detector is indexed.
  if (detector_.workers() > 0 && workers != detector_.workers()) {
    throw std::invalid_argument(
        fmt::format("sync_switch: the saved state is of {} workers; this "
                    "run has {}",
                    workers, detector_.workers()));
  }
  shape_ =
      RunShape{workers, checkpoint::integer<int64_t>(shape.at("max_samples")),
               checkpoint::integer<int>(shape.at("batch_size")), shape.at("momentum").get<double>(),
               checkpoint::integer_or<uint64_t>(shape, "seed", 0)};  // older states: absent
  bsp_.restore_state(state.at("bsp"));
  detector_ = StragglerDetector(shape_.workers, options_.straggler);
  detector_.restore_state(state.at("detector"));
  phase_ = state.at("phase") == "bsp" ? Phase::Bsp : Phase::Asp;
  asp_reason_ = state.at("asp_reason").get<std::string>();
  bsp_budget_ = checkpoint::integer<int64_t>(state.at("bsp_budget"));
  asp_updates_ = checkpoint::integer<int64_t>(state.at("asp_updates"));
  optimizer_ = {state.at("optimizer").at("lr_scale").get<double>(),
                state.at("optimizer").at("momentum").get<double>()};
  pull_seconds_sum_ = state.at("pull_seconds_sum").get<double>();
  pulls_measured_ = checkpoint::integer<int64_t>(state.at("pulls_measured"));
}

namespace {

OnlinePolicy online_policy_named(const std::string& name) {
  if (name == "none") return OnlinePolicy::None;
  if (name == "greedy") return OnlinePolicy::Greedy;
  if (name == "elastic") return OnlinePolicy::Elastic;
  throw std::invalid_argument("protocol.online: unknown policy '" + name +
                              "' (allowed: none, greedy, elastic)");
}

}  // namespace

ProtocolInfo sync_switch_protocol() {
  return ProtocolInfo{
      "sync_switch",
      "Sync-Switch: BSP for a fraction of the budget, then ASP, switched in place; optional "
      "online policies for transient stragglers",
      {
          number_param("bsp_fraction", 0.25,
                       "x: the fraction of the budget (in BSP steps) run as BSP", 0, 1),
          // Read by the config layer (config/switch_policy.h), which sets bsp_fraction from
          // it: the protocol itself never touches a file.
          text_param("policy_file",
                     "a policy file written by `hetps tune sync-switch`: bsp_fraction becomes "
                     "its chosen x"),
          number_param("budget_steps", 0,
                       "S, the budget in BSP steps; 0 = train.max_samples / (workers x batch)", 0,
                       1e12, true),
          word_param("lr_rule", "divide",
                     "the learning rate in ASP: divided by the workers, or kept",
                     {"divide", "keep"}),
          word_param("momentum_rule", "ramped",
                     "momentum in ASP: ramped (m/n for ramp_steps updates, then m), multistep "
                     "(doubled every ramp_steps), scaled (m/n), zero or keep",
                     {"ramped", "multistep", "scaled", "zero", "keep"}),
          only_with(number_param("ramp_steps", 200,
                                 "ASP updates per stage of the ramped and multistep rules", 1, 1e12,
                                 true),
                    "momentum_rule", {"ramped", "multistep"}),
          word_param("online", "none", "transient-straggler policy", {"none", "greedy", "elastic"}),
          only_with(
              number_param("straggler_factor", 1.5,
                           "a straggler's recent step time over its own profiled one", 1, 1000),
              "online", {"greedy", "elastic"}),
          only_with(number_param("straggler_window", 5, "steps in a worker's recent step time", 1,
                                 10000, true),
                    "online", {"greedy", "elastic"}),
          only_with(number_param("expected_episode_s", 10,
                                 "elastic: the expected straggler episode before one has ended "
                                 "(seconds)",
                                 0, 1e9),
                    "online", {"elastic"}),
          only_with(number_param("switch_overhead_s", 0,
                                 "elastic: the cost of a switch (seconds); 0 = the time of one "
                                 "pull, measured as half of each push and pull",
                                 0, 1e9),
                    "online", {"elastic"}),
      },
      [](const config::ProtocolParams& params) {
        SyncSwitchOptions options;
        options.bsp_fraction = number(params, "bsp_fraction");
        options.budget_steps = static_cast<int64_t>(number(params, "budget_steps"));
        options.settings.divide_lr = word(params, "lr_rule") == "divide";
        options.settings.momentum_rule = momentum_rule_named(word(params, "momentum_rule"));
        options.settings.ramp_steps = static_cast<int64_t>(number(params, "ramp_steps"));
        options.online = online_policy_named(word(params, "online"));
        options.straggler.factor = number(params, "straggler_factor");
        options.straggler.window = static_cast<int>(number(params, "straggler_window"));
        options.expected_episode_s = number(params, "expected_episode_s");
        options.switch_overhead_s = number(params, "switch_overhead_s");
        return std::make_unique<SyncSwitch>(options);
      }};
}

}  // namespace hetps::protocol
