#include "protocol/ashl.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "checkpoint/saved_integers.h"
#include "protocol/hybrids.h"
#include "protocol/param_specs.h"

namespace hetps::protocol {

Ashl::Ashl(const AshlOptions& options) : options_(options) {
  if (options.h_preset_shl > options.h_preset_ahl) {
    throw std::invalid_argument(fmt::format(
        "protocol.h_preset_shl = {} is above protocol.h_preset_ahl = {}; AHL is the coarse "
        "stage, with more local steps",
        options.h_preset_shl, options.h_preset_ahl));
  }
  if (options.r_preset_shl < options.r_preset_ahl) {
    throw std::invalid_argument(fmt::format(
        "protocol.r_preset_shl = {} is below protocol.r_preset_ahl = {}; SHL is the fine "
        "stage, compressing less",
        options.r_preset_shl, options.r_preset_ahl));
  }
}

void Ashl::start(const RunShape& shape, Actions& /*actions*/) {
  workers_ = shape.workers;
  const auto workers = static_cast<size_t>(workers_);
  const auto window = static_cast<size_t>(options_.window);
  stage_ = Stage::Profiling;
  times_.assign(workers,
                WorkerTimesWindows{MovingMean(window), MovingMean(window), MovingMean(window)});
  planned_t_iter_.assign(workers, 0);
  sent_keep_ratio_.assign(workers, 1.0);
  recent_losses_ = MovingMean(workers);
  first_global_loss_.reset();
  shl_commits_.assign(workers, 0);
  live_.clear();
  for (int w = 0; w < workers_; ++w) live_.insert(w);
  held_pulls_.clear();
}

bool Ashl::profiled() const {
  return std::all_of(live_.begin(), live_.end(), [&](int w) {
    return times_[static_cast<size_t>(w)].measured >= options_.profile_steps;
  });
}

Ashl::StageSettings Ashl::plan_stage(const AshlProfile& profile, const std::vector<int>& planned,
                                     int h_preset, double r_preset, const char* h_name,
                                     const char* r_name) const {
  const StagePlan plan = plan_local_steps(profile, {h_preset, h_name});
  const std::vector<double> ratios =
      options_.compression ? plan_keep_ratios(profile, plan.local_steps, {r_preset, r_name},
                                              {options_.min_ratio, "protocol.min_ratio"})
                           : std::vector<double>(planned.size(), 1.0);
  StageSettings settings{std::vector<int>(static_cast<size_t>(workers_), 0),
                         std::vector<double>(static_cast<size_t>(workers_), 0.0),
                         std::vector<double>(static_cast<size_t>(workers_), 1.0)};
  for (size_t k = 0; k < planned.size(); ++k) {
    const auto w = static_cast<size_t>(planned[k]);
    settings.local_steps[w] = plan.local_steps[k];
    settings.data_shares[w] = plan.data_shares[k];
    settings.keep_ratios[w] = ratios[k];
  }
  return settings;
}

void Ashl::plan_stages(const char* reason, Actions& actions) {
  const std::vector<int> planned(live_.begin(), live_.end());
  AshlProfile profile;  // T_compress 0: it cancels out of Algorithm 2 (ashl.h)
  profile.ids = planned;
  nlohmann::json times = nlohmann::json::array();
  for (int w : planned) {
    const WorkerTimesWindows& windows = times_[static_cast<size_t>(w)];
    profile.workers.push_back(
        {windows.t_iter.mean(), windows.t_push.mean(), windows.t_pull.mean()});
    planned_t_iter_[static_cast<size_t>(w)] = windows.t_iter.mean();
    times.push_back({{"worker", w},
                     {"t_iter", windows.t_iter.mean()},
                     {"t_push", windows.t_push.mean()},
                     {"t_pull", windows.t_pull.mean()}});
  }
  ahl_ = plan_stage(profile, planned, options_.h_preset_ahl, options_.r_preset_ahl,
                    "protocol.h_preset_ahl", "protocol.r_preset_ahl");
  shl_ = plan_stage(profile, planned, options_.h_preset_shl, options_.r_preset_shl,
                    "protocol.h_preset_shl", "protocol.r_preset_shl");
  auto stage_record = [](const StageSettings& stage) {
    return nlohmann::json{{"local_steps", stage.local_steps},
                          {"data_shares", stage.data_shares},
                          {"keep_ratios", stage.keep_ratios}};
  };
  actions.record({"profile",
                  {{"reason", reason},
                   {"times", times},
                   {"ahl", stage_record(ahl_)},
                   {"shl", stage_record(shl_)}}});
}

WorkerPlan Ashl::plan_for(int worker) const {
  WorkerPlan plan;
  plan.kind = UpdateKind::Delta;
  if (stage_ == Stage::Profiling) return plan;  // one step, uncompressed
  const StageSettings& stage = stage_ == Stage::Ahl ? ahl_ : shl_;
  const auto w = static_cast<size_t>(worker);
  // A worker that was dead when the stages were planned never asks again; 1 keeps a plan valid.
  plan.max_local_steps = std::max(1, stage.local_steps[w]);
  plan.keep_ratio = stage.keep_ratios[w];
  plan.error_feedback = options_.error_feedback;
  plan.data_shares = stage.data_shares;
  return plan;
}

double Ashl::merge_weight(int worker) const {
  const double members = static_cast<double>(live_.size());
  const double server_lr = options_.server_lr > 0 ? options_.server_lr : 1.0 / members;
  const double share =
      stage_ == Stage::Profiling
          ? 1.0 / members
          : (stage_ == Stage::Ahl ? ahl_ : shl_).data_shares[static_cast<size_t>(worker)];
  return members * share * server_lr;
}

bool Ashl::drifted() const {
  return std::any_of(live_.begin(), live_.end(), [&](int w) {
    const double planned = planned_t_iter_[static_cast<size_t>(w)];
    const double now = times_[static_cast<size_t>(w)].t_iter.mean();
    return planned > 0 && std::abs(now - planned) / planned > options_.reprofile_drift;
  });
}

void Ashl::observe_loss(double loss, Actions& actions) {
  recent_losses_.add(loss);
  if (recent_losses_.size() < static_cast<size_t>(workers_)) return;
  const double global_loss = recent_losses_.mean();
  if (!first_global_loss_) first_global_loss_ = global_loss;
  if (stage_ != Stage::Ahl) return;
  const double preset = options_.loss_preset_relative ? options_.loss_preset * *first_global_loss_
                                                      : options_.loss_preset;
  if (global_loss > preset) return;
  stage_ = Stage::Shl;
  std::fill(shl_commits_.begin(), shl_commits_.end(), 0);
  actions.record({"phase",
                  {{"from", "ahl"},
                   {"to", "shl"},
                   {"reason", "loss"},
                   {"global_loss", global_loss},
                   {"loss_preset", preset}}});
}

bool Ashl::gap_allows(int worker) const {
  int64_t fewest = shl_commits_[static_cast<size_t>(worker)];
  for (int w : live_) fewest = std::min(fewest, shl_commits_[static_cast<size_t>(w)]);
  return shl_commits_[static_cast<size_t>(worker)] - fewest <= options_.s_preset;
}

void Ashl::answer(int worker, Actions& actions) {
  const WorkerPlan plan = plan_for(worker);
  sent_keep_ratio_[static_cast<size_t>(worker)] = plan.keep_ratio;
  actions.reply_pull(worker, plan);
}

void Ashl::release_held_pulls(Actions& actions) {
  for (auto it = held_pulls_.begin(); it != held_pulls_.end();) {
    if (stage_ != Stage::Shl || gap_allows(*it)) {
      const int worker = *it;
      it = held_pulls_.erase(it);
      answer(worker, actions);
    } else {
      ++it;
    }
  }
}

void Ashl::on_pull_request(int worker, Actions& actions) {
  if (!live_.contains(worker)) return;  // dead: it will not train on
  if (stage_ == Stage::Shl && !gap_allows(worker)) {
    held_pulls_.insert(worker);
    return;
  }
  answer(worker, actions);
}

void Ashl::on_update(const UpdateInfo& update, Actions& actions) {
  if (!live_.contains(update.worker)) {
    actions.discard(update.id);
    return;
  }
  actions.apply({UpdateKind::Delta, {update.id}, {merge_weight(update.worker)}});
  const auto w = static_cast<size_t>(update.worker);
  // A first commit is not measured (ashl.h); nor is a step time of 0, which no step takes.
  if (update.clock > 1 && update.steps > 0 && update.compute_seconds > 0) {
    WorkerTimesWindows& windows = times_[w];
    windows.t_iter.add(update.compute_seconds / update.steps);
    if (sent_keep_ratio_[w] == 1.0) windows.t_push.add(update.push_seconds);
    windows.t_pull.add(update.pull_seconds);
    ++windows.measured;
  }
  if (stage_ == Stage::Shl) ++shl_commits_[static_cast<size_t>(update.worker)];

  if (stage_ == Stage::Profiling) {
    if (profiled()) {
      plan_stages("profiled", actions);
      stage_ = Stage::Ahl;
    }
  } else if (drifted()) {
    plan_stages("drift", actions);
  }
  observe_loss(update.train_loss, actions);
  release_held_pulls(actions);
}

void Ashl::on_worker_failed(int worker, Actions& actions) {
  live_.erase(worker);
  held_pulls_.erase(worker);
  if (live_.empty()) return;
  if (stage_ != Stage::Profiling) {
    plan_stages("failure", actions);  // the survivors' shares sum to 1 again
  } else if (profiled()) {
    plan_stages("profiled", actions);
    stage_ = Stage::Ahl;
  }
  release_held_pulls(actions);
}

nlohmann::json Ashl::save_state() const {
  nlohmann::json times = nlohmann::json::array();
  for (const WorkerTimesWindows& windows : times_) {
    times.push_back({windows.t_iter.save_state(), windows.t_push.save_state(),
                     windows.t_pull.save_state(), windows.measured});
  }
  auto stage_state = [](const StageSettings& stage) {
    return nlohmann::json{stage.local_steps, stage.data_shares, stage.keep_ratios};
  };
  return {{"stage", static_cast<int>(stage_)},
          {"times", times},
          {"planned_t_iter", planned_t_iter_},
          {"sent_keep_ratio", sent_keep_ratio_},
          {"ahl", stage_state(ahl_)},
          {"shl", stage_state(shl_)},
          {"recent_losses", recent_losses_.save_state()},
          {"first_global_loss", first_global_loss_ ? nlohmann::json(*first_global_loss_) : nullptr},
          {"shl_commits", shl_commits_},
          {"live", live_},
          {"held_pulls", held_pulls_}};
}

// Read whole into a copy first, so that a state that does not fit leaves this one untouched.
void Ashl::restore_state(const nlohmann::json& state) {
  Ashl restored(options_);
  const auto workers = static_cast<size_t>(workers_);
  auto refuse = [&](const std::string& what) {
    throw std::invalid_argument(fmt::format(
        "ashl: the saved state does not fit this run of {} workers: {}", workers_, what));
  };
  const auto& times = state.at("times");
  if (times.size() != workers) refuse(fmt::format("it holds {} workers", times.size()));
  const int stage = checkpoint::integer<int>(state.at("stage"));
  if (stage < 0 || stage > static_cast<int>(Stage::Shl)) refuse(fmt::format("stage {}", stage));
  restored.workers_ = workers_;
  restored.stage_ = static_cast<Stage>(stage);
  const auto window = static_cast<size_t>(options_.window);
  for (const auto& saved : times) {
    WorkerTimesWindows windows{MovingMean(window), MovingMean(window), MovingMean(window)};
    windows.t_iter.restore_state(saved.at(0));
    windows.t_push.restore_state(saved.at(1));
    windows.t_pull.restore_state(saved.at(2));
    windows.measured = checkpoint::integer<int64_t>(saved.at(3));
    restored.times_.push_back(std::move(windows));
  }
  restored.planned_t_iter_ = state.at("planned_t_iter").get<std::vector<double>>();
  restored.sent_keep_ratio_ = state.at("sent_keep_ratio").get<std::vector<double>>();
  auto restore_stage = [&](const nlohmann::json& saved, StageSettings& stage_settings) {
    stage_settings.local_steps = checkpoint::integers<std::vector<int>>(saved.at(0));
    stage_settings.data_shares = saved.at(1).get<std::vector<double>>();
    stage_settings.keep_ratios = saved.at(2).get<std::vector<double>>();
    const bool planned = !stage_settings.local_steps.empty();
    if (planned && (stage_settings.local_steps.size() != workers ||
                    stage_settings.data_shares.size() != workers ||
                    stage_settings.keep_ratios.size() != workers)) {
      refuse("a stage's plan is for another number of workers");
    }
  };
  restore_stage(state.at("ahl"), restored.ahl_);
  restore_stage(state.at("shl"), restored.shl_);
  // Plans are read from the stage in force (found by fuzz/checkpoint.cpp).
  if (restored.stage_ != Stage::Profiling &&
      (restored.stage_ == Stage::Ahl ? restored.ahl_ : restored.shl_).local_steps.empty()) {
    refuse(fmt::format("stage {} has no plan", stage));
  }
  restored.recent_losses_ = MovingMean(workers);
  restored.recent_losses_.restore_state(state.at("recent_losses"));
  const auto& first = state.at("first_global_loss");
  if (!first.is_null()) restored.first_global_loss_ = first.get<double>();
  restored.shl_commits_ = checkpoint::integers<std::vector<int64_t>>(state.at("shl_commits"));
  restored.live_ = checkpoint::integers<std::set<int>>(state.at("live"));
  restored.held_pulls_ = checkpoint::integers<std::set<int>>(state.at("held_pulls"));
  if (restored.planned_t_iter_.size() != workers || restored.sent_keep_ratio_.size() != workers ||
      restored.shl_commits_.size() != workers) {
    refuse("a per-worker list has another length");
  }
  for (const std::set<int>* ids : {&restored.live_, &restored.held_pulls_}) {
    if (const auto outside = checkpoint::id_outside(*ids, workers_)) {
      refuse(
          fmt::format("worker {} of its live workers or held pulls is not in this run", *outside));
    }
  }
  *this = std::move(restored);
}

ProtocolInfo ashl_protocol() {
  return ProtocolInfo{
      "ashl",
      "ASHL: profiling, then an asynchronous coarse stage (AHL) and a gap-bounded fine stage "
      "(SHL), with per-worker local steps and top-k compression",
      {
          number_param("profile_steps", 5, "measured commits per worker before planning", 1, 1e6,
                       true),
          number_param("h_preset_ahl", 16, "AHL's H_preset: local steps of the slowest round", 1,
                       1e6, true),
          number_param("h_preset_shl", 2, "SHL's H_preset", 1, 1e6, true),
          word_param("compression", "on", "top-k compression of the deltas (Algorithm 2)",
                     {"on", "off"}),
          only_with(word_param("error_feedback", "on",
                               "compressed deltas keep what top-k left out for later rounds",
                               {"on", "off"}),
                    "compression", {"on"}),
          only_with(number_param("r_preset_ahl", 0.1,
                                 "AHL's r_preset: the fastest link's keep ratio", 1e-9, 1),
                    "compression", {"on"}),
          only_with(number_param("r_preset_shl", 0.1, "SHL's r_preset", 1e-9, 1), "compression",
                    {"on"}),
          only_with(number_param("min_ratio", 0.01, "the lowest keep ratio", 1e-9, 1),
                    "compression", {"on"}),
          number_param("loss_preset", 0.3, "the global loss that ends AHL", 0, 1e9),
          word_param("loss_preset_relative", "yes",
                     "loss_preset as a fraction of the first global loss (yes) or absolute (no)",
                     {"yes", "no"}),
          number_param("s_preset", 2, "SHL's bound on the commit gap between workers", 0, 1e9,
                       true),
          number_param("server_lr", 0, "server_lr of η_i = M·D_i·server_lr; 0 = 1/M", 0, 1e6),
          number_param("reprofile_drift", 0.5,
                       "plan again when a worker's step time drifts by this fraction", 1e-9, 1e9),
          number_param("window", 5, "samples in each worker's moving windows of times", 1, 1e6,
                       true),
      },
      [](const config::ProtocolParams& params) {
        AshlOptions options;
        options.profile_steps = static_cast<int>(number(params, "profile_steps"));
        options.h_preset_ahl = static_cast<int>(number(params, "h_preset_ahl"));
        options.h_preset_shl = static_cast<int>(number(params, "h_preset_shl"));
        options.compression = word(params, "compression") == "on";
        options.error_feedback = word(params, "error_feedback") == "on";
        options.r_preset_ahl = number(params, "r_preset_ahl");
        options.r_preset_shl = number(params, "r_preset_shl");
        options.min_ratio = number(params, "min_ratio");
        options.loss_preset = number(params, "loss_preset");
        options.loss_preset_relative = word(params, "loss_preset_relative") == "yes";
        options.s_preset = static_cast<int>(number(params, "s_preset"));
        options.server_lr = number(params, "server_lr");
        options.reprofile_drift = number(params, "reprofile_drift");
        options.window = static_cast<int>(number(params, "window"));
        return std::make_unique<Ashl>(options);
      }};
}

}  // namespace hetps::protocol
