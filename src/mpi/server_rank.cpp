#include "mpi/server_rank.h"

#include <chrono>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/injected_delays.h"
#include "engine/run_timeline.h"
#include "engine/server_loop.h"
#include "engine/step_calibration.h"
#include "mpi/rank_checkpoints.h"
#include "mpi/run_clock.h"
#include "mpi/server_endpoint.h"
#include "mpi/shard_peers.h"
#include "mpi/shared_memory_copies.h"
#include "mpi/wire/message_error.h"

namespace hetps::mpi {
namespace {

// What the run log says about the set-up, at time 0.
void record_setup(engine::ServerLoop& loop, const RankSetup& setup,
                  const model::Learner& evaluator) {
  if (setup.calibrated_step) {
    loop.state().record(
        {"calibration",
         {{"step_seconds", *setup.calibrated_step},
          {"flops_per_step", evaluator.flops_per_sample() * setup.config.data.batch_size},
          {"apply_gbps", engine::measure_apply_gbps(setup.config, evaluator.layout())}}},
        0.0);
  }
  const std::vector<std::string> crowded = setup.layout.crowded_hosts();
  if (!crowded.empty()) {
    loop.state().record(
        {"warning",
         {{"message", fmt::format("more ranks than cores ({}): the injected heterogeneity is "
                                  "only approximate",
                                  fmt::join(crowded, "; "))}}},
        0.0);
  }
  if (const auto warning = double_copy_warning(setup.layout)) {
    loop.state().record({"warning", {{"message", *warning}}}, 0.0);
  }
  if (const auto warning = engine::speeds_above_one_warning(setup.config.cluster)) {
    loop.state().record({"warning", {{"message", *warning}}}, 0.0);
  }
}

// The workers' timelines as they sent them: a worker that sent none (it did not stop in time)
// has an empty one. Throws MessageError naming the rank that sent one that is not a timeline.
metrics::ActivityTimeline gathered_timeline(const config::Config& config, const RankLayout& layout,
                                            const std::map<int, std::vector<double>>& sent) {
  metrics::ActivityTimeline timeline = engine::make_timeline(config);
  for (const auto& [worker, recorded] : sent) {
    try {
      timeline.worker(worker) = metrics::WorkerActivity::from_doubles(
          recorded, static_cast<size_t>(config.run.timeline_intervals));
    } catch (const std::invalid_argument& error) {
      throw MessageError(layout.worker_rank(worker), error.what());
    }
  }
  return timeline;
}

}  // namespace

metrics::Summary run_server_rank(const RankSetup& setup, engine::RunListener& listener,
                                 const engine::RunCheckpoints& checkpoints) {
  auto wall_start = std::chrono::steady_clock::now();
  const config::Config& config = setup.config;
  const RankLayout& layout = setup.layout;
  auto evaluator = setup.models.make_learner();
  const std::vector<params::KeyRange> slices =
      evaluator->layout().shard_ranges(static_cast<size_t>(layout.servers()));
  std::optional<ShardPeers> peers;
  if (layout.servers() > 1) peers.emplace(setup.comm, layout, slices, config.run.stall_timeout_s);
  ShardPeers* remote = peers ? &*peers : nullptr;
  RunClock clock;
  ServerEndpoint endpoint(setup.comm, layout, slices.front(), slices.back().end, remote, clock);
  engine::ServerLoop loop(
      config, setup.data, *evaluator, listener, endpoint, [&clock] { return clock.now(); },
      [&layout](int worker) { return layout.describe_worker(worker); }, remote);
  const double patience = config.run.stall_timeout_s;
  engine::CheckpointSchedule schedule(checkpoints, config.run.checkpoint_interval);
  RankCheckpointer checkpointer(
      checkpoints, schedule, endpoint, remote, clock, patience, [&wall_start] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
      });
  double resumed_at = 0;
  if (setup.resumed) {
    const RankCheckpointer::Resumed resumed =
        checkpointer.resume(*checkpoints.resume_from, loop, layout.workers());
    resumed_at = resumed.time;
    wall_start -= std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(resumed.wall_seconds));
  } else {
    record_setup(loop, setup, *evaluator);
  }
  clock.start(setup.comm, Patience::before_training(config.run), resumed_at);
  try {
    if (setup.resumed) {
      loop.skip_shard_failures(checkpoints.crashed_shards);
      loop.release_replies();
    } else {
      loop.start();
    }
    const std::string stop_reason = loop.serve(schedule.enabled() ? &checkpointer : nullptr);
    const std::vector<int> silent = endpoint.stop_workers(patience);
    if (!silent.empty()) {
      throw engine::StallError(fmt::format(
          "stalled: {} did not stop within run.stall_timeout_s = {} of the end of the run",
          layout.describe_workers(silent), patience));
    }
    // The final evaluation still reads the other shards' slices: they stop after it.
    metrics::Summary summary = loop.state().finish(clock.now(), stop_reason, "mpi", wall_start);
    if (peers) peers->stop();
    metrics::ActivityTimeline timeline =
        gathered_timeline(config, layout, endpoint.worker_timelines());
    engine::publish_timeline(timeline, setup.delays.cluster(), summary.total_time, listener,
                             summary);
    return summary;
  } catch (...) {
    endpoint.stop_workers(patience);
    if (peers) peers->stop();
    throw;
  }
}

}  // namespace hetps::mpi
