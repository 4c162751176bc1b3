// Shows a run's progress from its evaluations: a one-line bar redrawn in place on a terminal,
// a plain line per evaluation (at most one every two seconds) when stdout is a file or pipe or
// the run is on mpi, nothing with --quiet.
#pragma once

#include <chrono>
#include <optional>
#include <ostream>
#include <string>

#include "config/config.h"
#include "engine/engine.h"

namespace hetps::cli {

enum class ProgressStyle { Bar, Lines, Silent };

// Bar when stdout is a terminal, Lines otherwise or on the mpi engine, Silent when `quiet`.
ProgressStyle progress_style(bool quiet, const config::Config& config);

// "virtual" for the simulator's clock, "run" for an engine that runs in wall-clock time.
std::string clock_name(const config::Config& config);

class ProgressDisplay : public engine::RunListener {
 public:
  ProgressDisplay(ProgressStyle style, std::string label, const config::Config& config,
                  std::ostream& out);
  void on_eval(const metrics::EvalRecord& record) override;
  // Warns, on its own line, at a `diverged` record, a `stall_warning` and an engine's `warning`
  // (shared cores): nothing else in the progress shows them.
  void on_event(const nlohmann::json& record) override;
  // Ends the bar's line; call once the run is over.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  // Of the budget: samples, or engine time when `train.max_time` is the nearer limit.
  double fraction_done(const metrics::EvalRecord& record) const;
  void draw_bar(const metrics::EvalRecord& record, double wall_seconds);
  void print_line(const metrics::EvalRecord& record, double wall_seconds);

  ProgressStyle style_;
  std::string label_;
  std::string clock_;
  config::TrainConfig budget_;
  std::ostream& out_;
  // At the run's first evaluation, before any training: the wall time shown is then the run's,
  // as its summary counts it, without the loading of data and model before.
  std::optional<Clock::time_point> start_;
  Clock::time_point last_line_;
  size_t bar_width_ = 0;  // characters of the last bar drawn, to blank a shorter redraw
};

}  // namespace hetps::cli
