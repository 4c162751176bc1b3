#include "engine/step_calibration.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <thread>
#include <vector>

#include "engine/model_snapshots.h"
#include "engine/server_state.h"
#include "engine/worker_factory.h"
#include "server/parameter_server.h"

namespace hetps::engine {

namespace {

// The median time of `timed` calls of `work` after `warm_up` untimed ones, in seconds; `prepare`
// runs untimed before each call.
template <typename Prepare, typename Work>
double median_seconds(int warm_up, int timed, Prepare&& prepare, Work&& work) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> seconds;
  for (int call = 0; call < warm_up + timed; ++call) {
    prepare();
    const auto begin = Clock::now();
    work();
    if (call >= warm_up) {
      seconds.push_back(std::chrono::duration<double>(Clock::now() - begin).count());
    }
  }
  std::nth_element(seconds.begin(), seconds.begin() + timed / 2, seconds.end());
  return seconds[static_cast<size_t>(timed / 2)];
}

}  // namespace

double measure_step_seconds(const config::Config& config, const data::Dataset& train,
                            model::Learner& learner) {
  auto probe = make_worker(config, train, make_partition(config, train), 0, learner);
  std::vector<float> model(learner.layout().size());
  std::vector<float> update(model.size());
  learner.initial_parameters(model);
  return median_seconds(
      3, 11, [] {}, [&] { probe->run(protocol::WorkerPlan{}, model, 0.0, update); });
}

double measure_apply_gbps(const config::Config& config, const params::ParamLayout& layout) {
  server::ParameterServer server(layout, std::vector<float>(layout.size()), server_options(config));
  std::vector<float> gradient(layout.size());
  const float* payloads[] = {gradient.data()};
  const protocol::ApplyOrder order{protocol::UpdateKind::Gradient, {0}, {1.0}};
  ModelSnapshots snapshots;
  // As in a run: the gradient was just written by a worker's thread, so it is not in this core's
  // cache, and workers still hold the models they pulled last, so each copy goes to a buffer
  // that is not either. Measured on the same buffers over and over it read half as long (MLP,
  // 940 kB: 36 us against 72 us on the 2-core VM, where the threads engine's server spent
  // 110-220 us per update in a run, waking up and bookkeeping included).
  std::array<ModelSnapshot, 2> held_by_workers;
  size_t calls = 0;
  const double seconds = median_seconds(
      3, 11,
      [&] {
        std::thread worker([&] { std::fill(gradient.begin(), gradient.end(), 1e-3F); });
        worker.join();
      },
      [&] {
        server.apply(order, payloads, 0);
        held_by_workers[calls++ % held_by_workers.size()] =
            snapshots.at(server.model(), server.version());
      });
  return static_cast<double>(layout.bytes()) * 8 / seconds / 1e9;
}

}  // namespace hetps::engine
