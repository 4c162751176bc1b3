// The job a Sync-Switch policy file was searched on, so that `train` can say when a policy is
// given to another job: its x is the smallest that held for that job's cluster, data and
// training, and says nothing of another's (spec/sync-switch.md, "Timing policy": the search is
// paid once per recurring job).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "config/config.h"
#include "config/switch_policy.h"

namespace hetps::config {

// Every setting of `config` that can change which x holds, as TOML text
// ({"cluster.workers": "16", "train.lr": "0.1", ...}); the per-worker lists (`cluster.speeds`,
// `link_gbps`, `link_latency_ms`) with an entry per worker, as they are cycled; `cluster.trace` as
// its file's digest (file_digest.h), so the same file under another path is the same job and an
// edited one is not. Left out:
// - what changes a run's bits but not which x holds: the seed (the search runs on seeds of its
//   own), the engine (tune on sim, train with mpirun), `run.*` (where a run is kept, how it is
//   watched, how many threads compute a worker's step);
// - what does not change training: `data.dir`, `train.eval_interval` (on the simulator an
//   evaluation changes nothing; the final accuracy is the last one's) and
//   `train.target_accuracy` unless `train.stop_at_target` stops the run there;
// - the switch point itself: `protocol.bsp_fraction`, `protocol.policy_file`.
std::map<std::string, std::string> job_settings(const Config& config);

// When the applied policy records the job it was searched on (files written before hetps
// recorded it do not) and `config` is another job, the warning that names the file and each
// setting that differs, the first eight of them:
//   protocol.policy_file policy.json was searched on another job than this run's, so its
//   x = 0.25 is not known to hold here: cluster.workers = 16 there, 8 here; ...
// A setting the file does not record is compared as its built-in default: the file was written
// by a hetps that did not have it yet. On `threads` and `mpi` the simulator's own settings
// (`cluster.worker_gflops`, `apply_gbps`, `compute_noise`, `switch_overhead_pulls`) are not
// compared: they act on `sim` only, where the search ran.
std::optional<std::string> another_job_warning(const AppliedPolicy& applied, const Config& config);

}  // namespace hetps::config
