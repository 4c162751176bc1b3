#include "engine/step_calibration.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "engine/model_snapshots.h"
#include "engine/server_state.h"
#include "engine/worker_factory.h"
#include "server/parameter_server.h"

namespace hetps::engine {

namespace {

// The median time of `timed` calls of `work` after `warm_up` untimed ones, in seconds.
template <typename Work>
double median_seconds(int warm_up, int timed, Work&& work) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> seconds;
  for (int call = 0; call < warm_up + timed; ++call) {
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
  return median_seconds(3, 11, [&] { probe->run(protocol::WorkerPlan{}, model, 0.0, update); });
}

double measure_apply_gbps(const config::Config& config, const params::ParamLayout& layout) {
  server::ParameterServer server(layout, std::vector<float>(layout.size()), server_options(config));
  const std::vector<float> gradient(layout.size());
  const float* payloads[] = {gradient.data()};
  const protocol::ApplyOrder order{protocol::UpdateKind::Gradient, {0}, {1.0}};
  ModelSnapshots snapshots;
  const double seconds = median_seconds(3, 11, [&] {
    server.apply(order, payloads, 0);
    snapshots.at(server.model(), server.version());
  });
  return static_cast<double>(layout.bytes()) * 8 / seconds / 1e9;
}

}  // namespace hetps::engine
