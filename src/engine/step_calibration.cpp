#include "engine/step_calibration.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <thread>
#include <vector>

#include "engine/mailbox.h"
#include "engine/model_snapshots.h"
#include "engine/server_state.h"
#include "engine/worker_factory.h"
#include "protocol/median.h"
#include "server/parameter_server.h"

namespace hetps::engine {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kWarmUpCalls = 3;
constexpr int kTimedCalls = 11;

double seconds_since(Clock::time_point begin) {
  return std::chrono::duration<double>(Clock::now() - begin).count();
}

}  // namespace

double measure_step_seconds(const config::Config& config, const data::Dataset& train,
                            model::Learner& learner) {
  auto probe = make_worker(config, train, make_partition(config, train), 0, learner);
  std::vector<float> model(learner.layout().size());
  std::vector<float> update(model.size());
  learner.initial_parameters(model);
  std::vector<double> seconds;
  for (int call = 0; call < kWarmUpCalls + kTimedCalls; ++call) {
    const auto begin = Clock::now();
    probe->run(protocol::WorkerPlan{}, model, 0.0, update);
    if (call >= kWarmUpCalls) seconds.push_back(seconds_since(begin));
  }
  return protocol::median(seconds);
}

void warm_up(const data::Dataset& train, int batch_size, model::Learner& learner) {
  try {
    std::vector<float> model(learner.layout().size());
    std::vector<float> gradient(model.size());
    learner.initial_parameters(model);
    const model::Batch batch{.inputs = train.inputs.data(),
                             .labels = train.labels.data(),
                             .size = std::min<int64_t>(batch_size, train.size())};
    for (int call = 0; call < kWarmUpCalls; ++call) learner.gradient(model, batch, gradient);
  } catch (const std::exception&) {
    // Nothing is lost: the worker's first step meets the same error, and the engine reports it
    // as it reports any worker's failure (with its rank and host on mpi).
  }
}

double measure_apply_gbps(const config::Config& config, const params::ParamLayout& layout) {
  server::ParameterServer server(layout, std::vector<float>(layout.size()), server_options(config));
  std::vector<float> gradient(layout.size());
  const float* payloads[] = {gradient.data()};
  const protocol::ApplyOrder order{protocol::UpdateKind::Gradient, {0}, {1.0}};
  ModelSnapshots snapshots;
  // Workers hold the models they pulled last, so each copy goes to a buffer no reader holds.
  std::array<ModelSnapshot, 2> held_by_workers;
  Mailbox<Clock::time_point> pushes;  // when the worker pushed each gradient
  Mailbox<bool> replies;              // the model is ready: push the next gradient
  const auto never = Clock::now() + std::chrono::hours(24);
  std::thread worker([&] {
    for (int call = 0; call < kWarmUpCalls + kTimedCalls; ++call) {
      std::fill(gradient.begin(), gradient.end(), 1e-3F);
      pushes.push(Clock::now());
      if (!replies.pop_until(never)) return;  // the measurement failed
    }
  });
  std::vector<double> seconds;
  try {
    for (int call = 0; call < kWarmUpCalls + kTimedCalls; ++call) {
      const Clock::time_point pushed = *pushes.pop_until(never);
      server.apply(order, payloads, 0);
      held_by_workers[static_cast<size_t>(call) % held_by_workers.size()] =
          snapshots.at(server.model(), server.version());
      if (call >= kWarmUpCalls) seconds.push_back(seconds_since(pushed));
      replies.push(true);
    }
  } catch (...) {
    // A joinable thread's destructor would end the process (std::bad_alloc, with a model near
    // the memory's size, must reach the user as a message).
    replies.close();
    worker.join();
    throw;
  }
  worker.join();
  return static_cast<double>(layout.bytes()) * 8 / protocol::median(seconds) / 1e9;
}

}  // namespace hetps::engine
