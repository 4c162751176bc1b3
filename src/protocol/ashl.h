// ASHL, adaptive multi-stage training [Shen et al., IEEE Trans. Computers 73(1) 2024;
// spec/ashl.md]: profile, then AHL (asynchronous, many local steps, strong compression) until
// the global loss reaches a preset, then SHL (few local steps, mild compression, a bound on the
// commit gap) to the end.
//   - Profiling: the first commits run one local step each, uncompressed, and feed every
//     worker's moving windows of T_iter (compute seconds per step), T_push and T_pull. Once every
//     live worker has `profile_steps` measured commits, Algorithms 1 and 2 (ashl_plan.h) plan
//     both stages: H, D and R per worker. A worker's first commit is not measured: on mpi its
//     round trip is incomplete (the first pull is not timed), and every engine measures alike.
//     T_compress is taken as 0: it is the same for every worker and cancels out of Algorithm 2
//     (it is in both T_update and T_rest). T_push is sampled from uncompressed commits only:
//     Algorithms 1 and 2 take the dense push time.
//   - Every commit is a model delta, merged on arrival as W ← W + η_i·Δ_i with
//     η_i = M·D_i·server_lr (spec; server_lr 1/M unless set: a round of commits then gives the
//     data-weighted mean of the deltas). While profiling D_i = 1/M.
//   - AHL never holds a pull. The global loss is the mean training loss of the last M commits;
//     at the first commit where it is at or below the preset (absolute, or a fraction of the first
//     global loss measured) the stage switches to SHL, once and for good.
//   - SHL: a worker's pull is held while its commits since the switch exceed the fewest of any
//     live worker by more than `s_preset`; it trains on once the others catch up.
//   - Re-profiling: when a worker's T_iter window mean drifts from the one its plan used by more
//     than `reprofile_drift` (relative), both stages are planned again from the windows; and when
//     a worker dies, for the live ones.
// Run log: a `profile` record per planning (the times, and H, D, R of both stages) and a `phase`
// record at the switch.
// Every plan carries the stage's data shares D: the workers train on the run's partition re-cut
// to them (protocol.h, WorkerPlan::data_shares).
#pragma once

#include <optional>
#include <set>
#include <vector>

#include "protocol/ashl_plan.h"
#include "protocol/moving_mean.h"
#include "protocol/protocol.h"

namespace hetps::protocol {

struct AshlOptions {
  int profile_steps = 5;
  // The presets' defaults are the sweep's choices (docs/protocols/ashl.md, "Presets: the
  // sweep").
  int h_preset_ahl = 16;
  int h_preset_shl = 2;
  bool compression = true;
  bool error_feedback = true;
  double r_preset_ahl = 0.1;
  double r_preset_shl = 0.1;
  double min_ratio = 0.01;
  double loss_preset = 0.3;
  bool loss_preset_relative = true;
  int s_preset = 2;
  double server_lr = 0;  // 0: 1/M
  double reprofile_drift = 0.5;
  int window = 5;  // samples in each worker's moving windows of times
};

class Ashl : public Protocol {
 public:
  // Throws std::invalid_argument when h_preset_shl exceeds h_preset_ahl (AHL is the coarse
  // stage) or r_preset_shl is below r_preset_ahl (SHL compresses less).
  explicit Ashl(const AshlOptions& options);

  std::string name() const override { return "ashl"; }
  void start(const RunShape& shape, Actions& actions) override;
  void on_pull_request(int worker, Actions& actions) override;
  void on_update(const UpdateInfo& update, Actions& actions) override;
  void on_worker_failed(int worker, Actions& actions) override;
  nlohmann::json save_state() const override;
  void restore_state(const nlohmann::json& state) override;

 private:
  enum class Stage { Profiling, Ahl, Shl };
  struct WorkerTimesWindows {
    MovingMean t_iter, t_push, t_pull;
    int64_t measured = 0;  // commits measured, towards profile_steps
  };
  // One stage's plan for every worker, indexed by worker id (0 steps and share for a worker
  // that was dead when it was planned).
  struct StageSettings {
    std::vector<int> local_steps;
    std::vector<double> data_shares;
    std::vector<double> keep_ratios;
  };

  void plan_stages(const char* reason, Actions& actions);
  StageSettings plan_stage(const AshlProfile& profile, const std::vector<int>& planned,
                           int h_preset, double r_preset, const char* h_name,
                           const char* r_name) const;
  WorkerPlan plan_for(int worker) const;
  void answer(int worker, Actions& actions);
  double merge_weight(int worker) const;
  bool profiled() const;
  bool drifted() const;
  void observe_loss(double loss, Actions& actions);
  bool gap_allows(int worker) const;
  void release_held_pulls(Actions& actions);

  AshlOptions options_;
  int workers_ = 0;
  Stage stage_ = Stage::Profiling;
  std::vector<WorkerTimesWindows> times_;
  std::vector<double> planned_t_iter_;   // by worker, as the current plans used them
  std::vector<double> sent_keep_ratio_;  // by worker: its last plan's, which its commit follows
  StageSettings ahl_, shl_;
  MovingMean recent_losses_;
  std::optional<double> first_global_loss_;
  std::vector<int64_t> shl_commits_;  // by worker, since the switch
  std::set<int> live_;
  std::set<int> held_pulls_;
};

}  // namespace hetps::protocol
