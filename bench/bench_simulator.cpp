// The simulator's real training throughput against a bare libtorch loop (DESIGN.md, "The hot
// path"): hetero-compute, ASP, batch 32, evaluation off, the MLP, in this one process with the
// same thread settings. The counter `ratio_to_bare` is the simulator's samples per second over
// the bare loop's, both measured in the same iteration; the goal is at least 0.9.
#include <benchmark/benchmark.h>

#include "bench/bare_loop.h"
#include "config/resolve.h"
#include "data/synthetic.h"
#include "engine/engine.h"
#include "model/learner.h"
#include "model/model_source.h"

namespace hetps::bench {
namespace {

constexpr int64_t kSamplesPerRun = 96000;

struct SilentListener : engine::RunListener {
  void on_eval(const metrics::EvalRecord&) override {}
  void on_event(const nlohmann::json&) override {}
};

config::Config simulator_config() {
  config::UserSettings settings;
  settings.add_set("cluster.scenario=hetero-compute");
  settings.add_set("protocol.name=asp");
  settings.add_set("data.name=synthetic");
  settings.add_set("data.batch_size=32");
  settings.add_set("train.max_samples=" + std::to_string(kSamplesPerRun));
  // Evaluation off: one evaluation at each end of the run, on a test set of one batch.
  settings.add_set("train.eval_interval=1e9");
  return config::resolve(settings);
}

void BM_SimulatorAspVsBareLoop(benchmark::State& state) {
  const config::Config config = simulator_config();
  const data::DataSplit data = data::make_synthetic(16384, 32, config.seed);
  BareLoopOptions bare;
  bare.batch_size = config.data.batch_size;
  bare.lr = config.train.lr;
  bare.momentum = config.train.momentum;
  const int64_t bare_steps = kSamplesPerRun / bare.batch_size;
  double ratio_sum = 0;
  double simulated_sum = 0;
  double bare_sum = 0;
  for (auto _ : state) {
    SilentListener listener;
    const metrics::Summary summary =
        engine::run(config, data, model::model_source(config, data.train), listener);
    const double simulated = static_cast<double>(summary.samples) / summary.wall_seconds;
    const double bare_rate = bare_loop_samples_per_second(bare, bare_steps);
    simulated_sum += simulated;
    bare_sum += bare_rate;
    ratio_sum += simulated / bare_rate;
  }
  const auto runs = static_cast<double>(state.iterations());
  state.counters["sim_samples_per_s"] = simulated_sum / runs;
  state.counters["bare_samples_per_s"] = bare_sum / runs;
  state.counters["ratio_to_bare"] = ratio_sum / runs;
}
BENCHMARK(BM_SimulatorAspVsBareLoop)->Iterations(3)->UseRealTime()->Unit(benchmark::kSecond);

}  // namespace
}  // namespace hetps::bench
