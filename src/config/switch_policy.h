// Sync-Switch's policy file (spec/sync-switch.md, "Timing policy"): the result of the offline
// search for the switch point x, written by `hetps tune sync-switch` and read when a config sets
// `protocol.policy_file`, so the search is paid once per recurring job. JSON:
//
//   {"format": "hetps-sync-switch-policy", "version": 1,
//    "chosen": 0.125,                      // the x a run with this file trains with
//    "bsp_accuracy": 0.8812, "bsp_run": "runs/tune-sync-switch/<hash>",
//    "tolerance": 0.005,                   // accuracy as a fraction: half a point
//    "candidates": [{"bsp_fraction": 0.5, "accuracy": 0.879, "run": "runs/..."}, ...],
//    "config_hash": "<hash>",              // of the resolved config of the run with x = chosen
//    "seed": 1,
//    "job": {"cluster.workers": "16", ...}} // the job searched on (policy_job.h); optional,
//                                          // as files written before it was recorded lack it
//
// The file is read here, in the config layer, and not by the protocol: resolve() turns it into
// `protocol.bsp_fraction` before the protocol is made, so the protocol stays pure logic with no
// file access, and the run's resolved config records the x it trained with.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "config/settings.h"

namespace hetps::config {

struct PolicyCandidate {
  double bsp_fraction = 0;
  double accuracy = 0;  // the run's final test accuracy
  std::string run;      // its run directory

  bool operator==(const PolicyCandidate&) const = default;
};

struct SwitchPolicy {
  double chosen = 1;  // in (0, 1]; 1: no candidate held, BSP throughout
  double bsp_accuracy = 0;
  std::string bsp_run;
  double tolerance = 0;
  std::vector<PolicyCandidate> candidates;  // in the order tried
  std::string config_hash;
  uint64_t seed = 0;
  std::map<std::string, std::string> job;  // setting -> TOML literal; empty: not recorded

  bool operator==(const SwitchPolicy&) const = default;
};

nlohmann::json to_json(const SwitchPolicy& policy);

// Throws ConfigError naming `file`, the field, the value found and what is allowed:
//   policy.json: chosen must be a number in (0, 1], got 1.5
SwitchPolicy switch_policy_from_json(const nlohmann::json& json, const std::string& file);

// Throws ConfigError naming the file when it cannot be read, is not JSON or not a valid policy.
SwitchPolicy read_switch_policy(const std::filesystem::path& file);

// Writes to a temporary sibling and renames it into place, so a reader never sees half a
// file. Creates the parent directories. Throws std::runtime_error naming the file.
void write_switch_policy(const std::filesystem::path& file, const SwitchPolicy& policy);

// A policy file a run's config took its x from.
struct AppliedPolicy {
  std::string file;  // as given
  SwitchPolicy policy;
};

// resolve()'s step for `protocol.policy_file`: when `params` has a non-empty one, sets
// `bsp_fraction` to the file's chosen x, clears `policy_file`, so the run's config.toml
// runs again without the file, and returns the policy, read once. Throws ConfigError, prefixed
// with where the setting was given, when the file is bad or `protocol.bsp_fraction` was given
// too (which one wins would be a guess).
std::optional<AppliedPolicy> apply_policy_file(ProtocolParams& params, const GivenParams& given);

}  // namespace hetps::config
