#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/engine.h"
#include "engine/external_engines.h"
#include "engine/sim_engine.h"
#include "engine/threads_engine.h"

namespace hetps::engine {
namespace {

std::map<std::string, ExternalEngine>& external_engines() {
  static std::map<std::string, ExternalEngine> engines;
  return engines;
}

}  // namespace

void register_engine(const std::string& name, ExternalEngine engine) {
  external_engines()[name] = std::move(engine);
}

const ExternalEngine* find_external_engine(const std::string& name) {
  const auto it = external_engines().find(name);
  return it == external_engines().end() ? nullptr : &it->second;
}

std::vector<std::string> external_engine_names() {
  std::vector<std::string> names;
  for (const auto& [name, engine] : external_engines()) names.push_back(name);
  return names;
}

metrics::Summary run(const config::Config& config, const data::DataSplit& data,
                     const ModelSource& models, RunListener& listener,
                     const RunCheckpoints& checkpoints) {
  // Every engine computes with run.threads_per_worker threads, whatever the host's cores:
  // OpenBLAS rounds a product split over another number of threads differently, so with its
  // default pool (one thread per core) a run's bits would depend on the host and the simulator
  // would not end on the real engines' parameters. The threads engine sets it again on each of
  // its worker threads.
  if (models.set_compute_threads) models.set_compute_threads(config.run.threads_per_worker);
  if (config.engine == "sim") {
    if (!config.cluster.shard_failures.empty()) {
      throw std::invalid_argument(
          "cluster.shard_failures: server-shard crashes are injected on the real engines only "
          "(threads, mpi): the simulator's server is not a process that can die");
    }
    SimEngine engine(config, data, models, listener);
    return engine.run(checkpoints);
  }
  if (config.engine == "threads") {
    ThreadsEngine engine(config, data, models, listener);
    return engine.run(checkpoints);
  }
  if (const ExternalEngine* engine = find_external_engine(config.engine)) {
    return engine->run(config, data, models, listener, checkpoints);
  }
  std::vector<std::string> available = {"sim", "threads"};
  for (const std::string& name : external_engine_names()) available.push_back(name);
  throw std::invalid_argument(
      fmt::format("engine: '{}' is not available in this build (available: {})", config.engine,
                  fmt::join(available, ", ")));
}

bool is_primary_process(const config::Config& config) {
  const ExternalEngine* engine = find_external_engine(config.engine);
  return engine == nullptr || engine->is_primary_process(config);
}

}  // namespace hetps::engine
