// Named clusters (`cluster.scenario`) and, per scenario and protocol, the training settings
// frozen for them. Both are tables in scenarios.cpp, built into hetps: adding a scenario or
// tuning a protocol is a row there, not logic. A user's own cluster needs no scenario: any
// `cluster.*` key (workers, speeds, links) overrides the scenario's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"

namespace hetps::config {

// The cluster settings a scenario fixes; every other cluster key keeps its default. Its
// per-worker lists are patterns for `workers` workers, spread over the run's (spread_over).
struct Scenario {
  std::string name;
  std::string description;
  int workers = 1;
  int servers = 1;
  std::vector<double> speeds;
  std::vector<double> link_gbps;
  std::vector<double> link_latency_ms;
  double worker_gflops = 0;
  double compute_noise = 0;
};

const std::vector<Scenario>& scenarios();
// nullptr when there is no such scenario.
const Scenario* find_scenario(std::string_view name);
// `pattern` (a scenario's list for its own worker count) for `workers` workers: repeated as a
// whole as often as it fits, then the workers left take entries spread evenly across it (the
// middle of each of their equal parts). So every count keeps the pattern's mix as near as it
// can: 4 workers of {1, 1, 1, 1, 0.5, 0.5, 0.25, 0.25} get {1, 1, 0.5, 0.25}, where cycling the
// pattern gave four equal workers; a multiple of its length gets the pattern repeated, as
// before.
std::vector<double> spread_over(const std::vector<double>& pattern, int workers);

// Sets the cluster to `scenario` with `workers` workers, its lists spread over them.
void apply_scenario(const Scenario& scenario, ClusterConfig& cluster, int workers);

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
