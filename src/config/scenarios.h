// Named clusters (`cluster.scenario`) and, per scenario and protocol, the training settings
// frozen for them. Both are data: adding a scenario or tuning a protocol touches no code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"

namespace hetps::config {

// The cluster settings a scenario fixes; every other cluster key keeps its default.
struct Scenario {
  std::string name;
  std::string description;
  int workers = 1;
  int servers = 1;
  std::vector<double> speeds;           // cycled over the workers
  std::vector<double> link_gbps;        // cycled over the workers
  std::vector<double> link_latency_ms;  // cycled over the workers
  double worker_gflops = 0;
  double compute_noise = 0;
};

const std::vector<Scenario>& scenarios();
// nullptr when there is no such scenario.
const Scenario* find_scenario(std::string_view name);
void apply_scenario(const Scenario& scenario, ClusterConfig& cluster);

// The training settings a protocol runs with on a scenario unless the user sets them.
struct TrainingDefaults {
  double lr = 0;
  double momentum = 0;
  int batch_size = 0;
  int64_t max_samples = 0;
  double target_accuracy = 0;
};

// nullopt when the table has nothing for this pair: the built-in defaults stay. `workers` is
// the run's worker count: an asynchronous protocol's learning rate is per update, and more
// workers pushing means staler updates, so above the scenario's own worker count (the sweep's)
// it shrinks in proportion (docs/defaults.md).
std::optional<TrainingDefaults> training_defaults(std::string_view scenario,
                                                  std::string_view protocol, int workers);
void apply_training_defaults(const TrainingDefaults& defaults, Config& config);

}  // namespace hetps::config
