#include "config/scenarios.h"

#include <algorithm>

namespace hetps::config {
namespace {

struct ProtocolDefaults {
  std::string scenario;
  std::string protocol;
  TrainingDefaults settings;
  bool asynchronous = false;  // its learning rate is per stale update: scaled with the workers
};

// Frozen from the sweep in docs/defaults.md (scripts/sweep-defaults.sh): per scenario and
// protocol, the (lr, momentum) of the grid with the best final accuracy at the budget, ties
// going to the earlier time to target. Averaging protocols (BSP, local SGD) searched larger
// steps with momentum; asynchronous ones (ASP, SSP) apply every stale gradient on its own and
// searched smaller steps with little or no momentum, which staleness otherwise amplifies
// (spec/baselines.md, "ASP"). Change these only with a new sweep, recorded in the doc.
const std::vector<ProtocolDefaults>& protocol_defaults() {
  auto defaults = [](double lr, double momentum) {
    return TrainingDefaults{.lr = lr,
                            .momentum = momentum,
                            .batch_size = 32,
                            .max_samples = 300000,
                            .target_accuracy = 0.85};
  };
  static const std::vector<ProtocolDefaults> table = {
      {"hetero-compute", "bsp", defaults(0.05, 0.9)},
      {"hetero-compute", "local_sgd", defaults(0.05, 0.9)},
      {"hetero-compute", "asp", defaults(0.05, 0.0), true},
      {"hetero-compute", "ssp", defaults(0.02, 0.5), true},
      // Sync-Switch trains with BSP's settings and derives its ASP phase's from them
      // (spec/sync-switch.md, "Configuration policy at the switch"): BSP's row, not a sweep.
      {"hetero-compute", "sync_switch", defaults(0.05, 0.9)},
      // SaPus' and ASHL's workers take local steps with their own optimizers, as local SGD's
      // do, and the server merges their deltas as they arrive: their own sweep over both grids
      // (docs/defaults.md). Their merge weights already shrink with the workers (about 1/n),
      // so their learning rate is not scaled as an asynchronous protocol's is.
      {"hetero-compute", "sapus", defaults(0.05, 0.9)},
      {"hetero-compute", "ashl", defaults(0.1, 0.5)},
      // Petrel averages inside a community and applies the communities' rounds asynchronously:
      // its own sweep over both grids (docs/defaults.md).
      {"hetero-compute", "petrel", defaults(0.1, 0.5)},
      {"hetero-network", "bsp", defaults(0.05, 0.9)},
      {"hetero-network", "local_sgd", defaults(0.05, 0.9)},
      {"hetero-network", "asp", defaults(0.05, 0.0), true},
      {"hetero-network", "ssp", defaults(0.05, 0.0), true},
      {"hetero-network", "sync_switch", defaults(0.05, 0.9)},
      {"hetero-network", "sapus", defaults(0.05, 0.9)},
      {"hetero-network", "ashl", defaults(0.05, 0.9)},
      // Alike workers make one community: Petrel is BSP here, and its sweep chose BSP's row.
      {"hetero-network", "petrel", defaults(0.05, 0.9)},
  };
  return table;
}

}  // namespace

const std::vector<Scenario>& scenarios() {
  // worker_gflops 2.8: a speed-1 worker's MLP step takes about ten times one push + pull on a
  // 10 Gbps link, so communication matters without dominating.
  static const std::vector<Scenario> all = {
      {.name = "hetero-compute",
       .description = "8 workers of mixed speed (4 at 1, 2 at 0.5, 2 at 0.25) on fast links",
       .workers = 8,
       .servers = 1,
       .speeds = {1, 1, 1, 1, 0.5, 0.5, 0.25, 0.25},
       .link_gbps = {10},
       .link_latency_ms = {0.05},
       .worker_gflops = 2.8,
       .compute_noise = 0.05},
      {.name = "hetero-network",
       .description = "8 equal workers, two of them on slow, distant links (0.5 Gbps, 2 ms)",
       .workers = 8,
       .servers = 1,
       .speeds = {1},
       .link_gbps = {10, 10, 10, 10, 10, 10, 0.5, 0.5},
       .link_latency_ms = {0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 2.0, 2.0},
       .worker_gflops = 2.8,
       .compute_noise = 0.05},
  };
  return all;
}

const Scenario* find_scenario(std::string_view name) {
  const auto& all = scenarios();
  const auto it = std::find_if(all.begin(), all.end(),
                               [&](const Scenario& scenario) { return scenario.name == name; });
  return it == all.end() ? nullptr : &*it;
}

std::vector<double> spread_over(const std::vector<double>& pattern, int workers) {
  const size_t length = pattern.size();
  const auto count = static_cast<size_t>(std::max(workers, 0));
  std::vector<double> spread;
  spread.reserve(count);
  for (size_t w = 0; w + length <= count; w += length) {
    spread.insert(spread.end(), pattern.begin(), pattern.end());
  }
  const size_t left = count - spread.size();
  for (size_t j = 0; j < left; ++j) {
    spread.push_back(pattern[(2 * j + 1) * length / (2 * left)]);
  }
  return spread;
}

void apply_scenario(const Scenario& scenario, ClusterConfig& cluster, int workers) {
  cluster.scenario = scenario.name;
  cluster.workers = workers;
  cluster.servers = scenario.servers;
  cluster.speeds = spread_over(scenario.speeds, workers);
  cluster.link_gbps = spread_over(scenario.link_gbps, workers);
  cluster.link_latency_ms = spread_over(scenario.link_latency_ms, workers);
  cluster.worker_gflops = scenario.worker_gflops;
  cluster.compute_noise = scenario.compute_noise;
}

std::optional<TrainingDefaults> training_defaults(std::string_view scenario,
                                                  std::string_view protocol, int workers) {
  for (const ProtocolDefaults& entry : protocol_defaults()) {
    if (entry.scenario != scenario || entry.protocol != protocol) continue;
    TrainingDefaults settings = entry.settings;
    const int swept_workers = find_scenario(scenario)->workers;
    if (entry.asynchronous && workers > swept_workers) {
      settings.lr *= static_cast<double>(swept_workers) / workers;
    }
    return settings;
  }
  return std::nullopt;
}

void apply_training_defaults(const TrainingDefaults& defaults, Config& config) {
  config.train.lr = defaults.lr;
  config.train.momentum = defaults.momentum;
  config.data.batch_size = defaults.batch_size;
  config.train.max_samples = defaults.max_samples;
  config.train.target_accuracy = defaults.target_accuracy;
}

}  // namespace hetps::config
