#include "engine/step_calibration.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "engine/worker_factory.h"

namespace hetps::engine {

double measure_step_seconds(const config::Config& config, const data::Dataset& train,
                            model::Learner& learner) {
  using Clock = std::chrono::steady_clock;
  auto probe = make_worker(config, train, 0, learner);
  std::vector<float> model(learner.layout().size());
  std::vector<float> update(model.size());
  learner.initial_parameters(model);
  constexpr int kWarmUp = 3;
  constexpr int kTimed = 11;
  std::vector<double> seconds;
  for (int step = 0; step < kWarmUp + kTimed; ++step) {
    const auto begin = Clock::now();
    probe->run(protocol::WorkerPlan{}, model, 0.0, update);
    if (step >= kWarmUp) {
      seconds.push_back(std::chrono::duration<double>(Clock::now() - begin).count());
    }
  }
  std::nth_element(seconds.begin(), seconds.begin() + kTimed / 2, seconds.end());
  return seconds[kTimed / 2];
}

}  // namespace hetps::engine
