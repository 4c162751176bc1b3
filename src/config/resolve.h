// Turns what the user asked for into the complete, checked configuration of a run.
// Later wins: built-in defaults < the scenario's cluster (`cluster.scenario`) < the scenario's
// frozen training defaults for the protocol < the config file < `--set`.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>

#include "config/config.h"
#include "config/settings.h"

namespace hetps::config {

struct ResolveOptions {
  // For `compare`, whose shared settings serve several protocols: where the entry's own
  // settings were given ("--protocols entry \"...\""). Its own protocol parameters are checked as
  // usual; a shared one is skipped by a protocol that lacks it or where it would do nothing
  // (ParamSpec::only_with), and compare checks that it acts in some entry. Empty: no compare.
  std::optional<std::string> compare_entry = std::nullopt;
  // With `compare_entry`: given the shared protocol parameters (their names) the entry takes.
  std::set<std::string>* shared_params_taken = nullptr;
  // Told of what resolve takes as asked but doubts: a `protocol.policy_file` searched on
  // another job than this one (policy_job.h). Nobody is told when empty.
  std::function<void(const std::string&)> warn = nullptr;
  // For a config hetps wrote itself (a run's config.toml on resume, a comparison's plan, a
  // checkpoint's): a setting that would do nothing is not refused, as an earlier hetps may have
  // taken it, and refusing it now would leave its run unresumable.
  bool written_by_hetps = false;
};

// Throws ConfigError naming the key, the value and what is allowed.
Config resolve(const UserSettings& settings, const ResolveOptions& options = {});

// The checks that involve several keys: the cluster as a whole (cluster::validate: a
// straggler's worker against `cluster.workers`, ...), the learning-rate schedule and the
// stall limits; resolve() runs them. Throws ConfigError.
void check_consistency(const Config& config);

}  // namespace hetps::config
