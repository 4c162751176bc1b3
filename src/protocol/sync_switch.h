// Sync-Switch [Li, Mangoubi, Xu, Guo — ICDCS 2021; spec/sync-switch.md]: BSP first, then ASP,
// switched in place (the original restarts its cluster from a checkpoint).
//   1. Budget. S = train.max_samples / (n·b) BSP steps (or `protocol.budget_steps`); the first
//      round(x·S) rounds run as BSP (x = `protocol.bsp_fraction`), the rest as ASP: the same
//      samples either way, so the run's sample budget ends it after (1−x)·S·n ASP steps.
//   2. Leaving BSP. The round being collected is given up: its updates are applied one by one
//      as ASP updates and its held pulls answered. The server optimizer takes the ASP settings
//      (SwitchSettings: lr ÷ n, a momentum rule), advanced after every ASP update.
//   3. Online policies for transient stragglers (`protocol.online`; StragglerDetector):
//        greedy  — in BSP, leave for ASP at a detection; once no straggler remains and BSP
//                  rounds are left, return to BSP with BSP's own settings. The updates in
//                  flight then form the first round. The BSP budget is spent exactly.
//        elastic — as greedy, but leave only when BSP's expected loss to the straggler,
//                  D·(1 − T/T'), exceeds twice the switch overhead: T the slowest profiled
//                  step, T' = max(T, σ·t_i), D the mean episode so far or
//                  `protocol.expected_episode_s`.
//   Every switch is charged to the engine (Actions::charge_switch: the simulator's overhead)
//   and is a `phase` record (from, to, reason, the overhead charged, lr scale and momentum
//   after); every detection and clearing is a `straggler` record.
#pragma once

#include <cstdint>
#include <string>

#include "protocol/protocol.h"
#include "protocol/straggler_detector.h"
#include "protocol/switch_settings.h"
#include "protocol/synchronous_rounds.h"

namespace hetps::protocol {

enum class OnlinePolicy { None, Greedy, Elastic };

struct SyncSwitchOptions {
  double bsp_fraction = 0.25;
  int64_t budget_steps = 0;  // 0: train.max_samples / (n·b)
  SwitchSettings settings;
  OnlinePolicy online = OnlinePolicy::None;
  StragglerOptions straggler;
  double expected_episode_s = 10;
  // 0: the time of one pull, measured as half of each update's push and pull (the two carry
  // as many bytes).
  double switch_overhead_s = 0;
};

// S, the budget in BSP steps: `budget_steps`, or the run's whole budget in BSP steps.
double budget_in_bsp_steps(int64_t budget_steps, const RunShape& shape);
// The BSP rounds before the switch: x·S rounded; x = 1 is BSP to the end, as `bsp` runs it,
// whatever S's rounding (a round(S) budget would hand an S that is not whole its last
// part-round to ASP).
int64_t bsp_rounds_before_switch(double bsp_fraction, int64_t budget_steps, const RunShape& shape);

class SyncSwitch : public Protocol {
 public:
  explicit SyncSwitch(SyncSwitchOptions options);

  std::string name() const override { return "sync_switch"; }
  void start(const RunShape& shape, Actions& actions) override;
  void on_pull_request(int worker, Actions& actions) override;
  void on_update(const UpdateInfo& update, Actions& actions) override;
  void on_worker_failed(int worker, Actions& actions) override;
  nlohmann::json save_state() const override;
  void restore_state(const nlohmann::json& state) override;

 private:
  enum class Phase { Bsp, Asp };

  void leave_bsp(const std::string& reason, Actions& actions);
  // Greedy and elastic go back once no straggler remains and BSP rounds are left.
  bool may_return_to_bsp() const;
  void return_to_bsp(Actions& actions);
  void apply_asp(int update_id, Actions& actions);
  void watch_stragglers(const UpdateInfo& update, Actions& actions);
  // Elastic's rule: whether BSP's expected loss to `straggler` exceeds twice the overhead.
  bool worth_leaving_for(int straggler, nlohmann::json& reasoning) const;
  double switch_overhead() const;
  // `overhead_s`: what the engine charged for the switch (Actions::charge_switch).
  void record_phase(const std::string& from, const std::string& to, const std::string& reason,
                    double overhead_s, Actions& actions) const;

  SyncSwitchOptions options_;
  RunShape shape_;
  SynchronousRounds bsp_;
  StragglerDetector detector_;
  Phase phase_ = Phase::Bsp;
  std::string asp_reason_;  // why the current ASP phase began: "budget" or "straggler"
  int64_t bsp_budget_ = 0;
  int64_t asp_updates_ = 0;  // since the last switch to ASP
  OptimizerOverride optimizer_;
  double pull_seconds_sum_ = 0;  // half of each update's push + pull round trip
  int64_t pulls_measured_ = 0;
};

}  // namespace hetps::protocol
