#include "mpi/worker_rank.h"

#include "engine/worker_factory.h"
#include "engine/worker_loop.h"
#include "mpi/run_clock.h"
#include "mpi/worker_endpoint.h"

namespace hetps::mpi {

void run_worker_rank(const RankSetup& setup) {
  const int worker = setup.layout.worker_of(setup.layout.rank());
  auto learner = setup.models.make_learner();
  auto trainer =
      engine::make_worker(setup.config, setup.data.train,
                          engine::make_partition(setup.config, setup.data.train), worker, *learner);
  RunClock clock;
  WorkerEndpoint endpoint(
      setup.comm, setup.slice_comm, setup.layout,
      learner->layout().shard_ranges(static_cast<size_t>(setup.layout.servers())), clock);
  clock.start(setup.comm, Patience::before_training(setup.config.run));
  const auto max_intervals = static_cast<size_t>(setup.config.run.timeline_intervals);
  metrics::WorkerActivity activity(max_intervals);
  engine::run_worker(*trainer, setup.delays, endpoint,
                     engine::failure_of(setup.config.cluster, worker), activity);
  endpoint.say_goodbye(setup.config.run.stall_timeout_s,
                       max_intervals > 0 ? activity.to_doubles() : std::vector<double>{});
}

}  // namespace hetps::mpi
