// The job a Sync-Switch policy file was searched on, so that `train` can say when a policy is
// given to another job: its x is the smallest that held for that job's cluster, data and
// training, and says nothing of another's (spec/sync-switch.md, "Timing policy": the search is
// paid once per recurring job).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "config/config.h"
#include "config/settings.h"

namespace hetps::config {

// Every setting of `config` that can change which x holds, as its TOML literal
// ({"cluster.workers": "16", "train.lr": "0.1", ...}). Left out: the seed (the search runs on
// seeds other than those judged), the engine (tune on sim, train with mpirun), where files are
// kept and how a run is watched (`run.*`, `data.dir`), and the switch point itself
// (`protocol.bsp_fraction`, `protocol.policy_file`).
std::map<std::string, std::string> job_settings(const Config& config);

// When `settings` give `protocol.policy_file` and the file records the job it was searched on
// (files written before hetps recorded it do not), and `config` (resolved from `settings`) is
// another job: the warning that names the file and each setting that differs, e.g.
//   protocol.policy_file policy.json was searched on another job than this run's, so its x = 0.25
//   is not known to hold here: cluster.workers = 16 there, 8 here; ...
std::optional<std::string> policy_of_another_job(const UserSettings& settings,
                                                 const Config& config);

}  // namespace hetps::config
