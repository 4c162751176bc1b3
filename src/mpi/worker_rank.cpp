#include "mpi/worker_rank.h"

#include <fmt/format.h>

#include "checkpoint/restoring.h"
#include "checkpoint/saved_integers.h"
#include "checkpoint/state_blob.h"
#include "engine/step_calibration.h"
#include "engine/worker_factory.h"
#include "engine/worker_loop.h"
#include "mpi/rank_checkpoints.h"
#include "mpi/run_clock.h"
#include "mpi/worker_endpoint.h"

namespace hetps::mpi {
namespace {

// What a worker rank keeps from round to round, for checkpoints (rank_checkpoints.h).
struct WorkerRankState {
  worker::Worker& trainer;
  engine::WorkerLoopState& loop;
  engine::InjectedDelays& delays;
  metrics::WorkerActivity& activity;
  size_t max_intervals;

  nlohmann::json save() const {
    return {{"worker", trainer.save_state()},
            {"pushes", loop.pushes},
            {"delays", delays.save_state()},
            {"activity", checkpoint::doubles_blob(activity.to_doubles())}};
  }

  void restore(const nlohmann::json& state) {
    checkpoint::restoring(fmt::format("worker {}", trainer.id()), [&] {
      trainer.restore_state(state.at("worker"));
      loop.pushes = checkpoint::integer<int64_t>(state.at("pushes"));
      delays.restore_state(state.at("delays"));
      activity = metrics::WorkerActivity::from_doubles(
          checkpoint::doubles_from_blob(state.at("activity"), "its activity"), max_intervals);
    });
    loop.resumed = true;
  }
};

}  // namespace

void run_worker_rank(const RankSetup& setup) {
  const int worker = setup.layout.worker_of(setup.layout.rank());
  auto learner = setup.models.make_learner();
  auto trainer =
      engine::make_worker(setup.config, setup.data.train,
                          engine::make_partition(setup.config, setup.data.train), worker, *learner);
  RunClock clock;
  WorkerEndpoint endpoint(
      setup.comm, setup.slice_comm, setup.layout,
      learner->layout().shard_ranges(static_cast<size_t>(setup.layout.servers())), clock,
      setup.config.run.stall_warning_s, setup.config.run.stall_timeout_s);
  const auto max_intervals = static_cast<size_t>(setup.config.run.timeline_intervals);
  metrics::WorkerActivity activity(max_intervals);
  engine::WorkerLoopState loop;
  WorkerRankState state{*trainer, loop, setup.delays, activity, max_intervals};
  endpoint.answer_state_requests([&state] { return state.save(); });
  engine::warm_up(setup.data.train, setup.config.data.batch_size, *learner);  // before the clock
  const double resumed_at =
      start_rank(setup, clock, [&state](const nlohmann::json& saved) { state.restore(saved); });
  const config::WorkerFailure* failure = engine::failure_of(setup.config.cluster, worker);
  // A worker that crashed or hung before the checkpoint stays gone or silent: the server's
  // state says so already.
  if (!setup.resumed || failure == nullptr || failure->time > resumed_at) {
    engine::run_worker(*trainer, setup.delays, endpoint, failure, activity, loop);
  }
  endpoint.say_goodbye(setup.config.run.stall_timeout_s,
                       max_intervals > 0 ? activity.to_doubles() : std::vector<double>{});
}

}  // namespace hetps::mpi
