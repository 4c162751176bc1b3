// One training job, from a resolved config to a finished run directory.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>

#include "cli/run_checkpoints.h"
#include "cli/staged_directory.h"
#include "config/config.h"
#include "config/settings.h"
#include "engine/engine.h"
#include "metrics/records.h"

namespace hetps::cli {

// Throws ConfigError when `model.name` is not a registered model or `data.name` not a known
// data set: the checks the libtorch-free config layer cannot make. Call it before loading data.
// With the `settings` the config was resolved from, the message names where the name was set
// ("--set model.name=x: ...", or the file and line), as the config layer's own do.
void check_names(const config::Config& config, const config::UserSettings* settings = nullptr);

// Loads the data and trains `config` on its engine, reporting to `listener`. A missing or
// corrupt data file or `cluster.trace` is bad input: it throws UsageError with the
// data::DataError's message.
metrics::Summary train_job(const config::Config& config, engine::RunListener& listener,
                           const engine::RunCheckpoints& checkpoints = {});

// Throws UsageError for a `run.checkpoint_interval` above 0: a run of run_job takes no
// checkpoints (the runs of `hetps tune`), and a command that makes such runs says so before any.
void refuse_checkpoint_interval(const config::Config& config);

// Loads the data, builds the model and trains `config` on its engine, writing config.toml,
// log.jsonl and summary.json into `dir`, until its end or `stop` (then engine::Interrupted,
// and no checkpoint is kept). Evaluations also go to `progress`. Throws UsageError
// (bad input) with the data::DataError's message for a missing or corrupt data file or
// `cluster.trace`, and for a `run.checkpoint_interval` above 0: it takes no checkpoints (the
// runs of `hetps tune`). An injected shard crash ends it with engine::ShardCrashed saying that
// the run is lost (shard_crashes.h).
metrics::Summary run_job(const config::Config& config, const std::filesystem::path& dir,
                         engine::RunListener& progress, const std::atomic<bool>& stop);

// Runs `run`, a job writing a run into `dir`. A run that fails of itself, stalled
// (engine::StallError) or ended by a server shard's crash (engine::ShardCrashed), keeps what it
// wrote: `dir` is committed unfinished (no summary.json, as a killed run leaves it), and the
// error, of the same kind, adds where its log is.
metrics::Summary keeping_a_failed_run(StagedDirectory& dir,
                                      const std::function<metrics::Summary()>& run);

// run_job into a staged run directory, with checkpoints (`run.checkpoint_interval`, and when
// `stop` is set: engine::Interrupted then ends the job) in `<run dir>/checkpoints`. The
// directory is committed at the first checkpoint, unfinished, so that a killed run can be
// resumed from it, and at the end. An injected shard crash ends it with engine::ShardCrashed
// naming the last checkpoint and `continue_with`, the command that continues the run, and is
// recorded in the directory (shard_crashes.h). A failed run is kept (keeping_a_failed_run).
metrics::Summary run_checkpointed_job(const config::Config& config, StagedDirectory& dir,
                                      const std::string& continue_with,
                                      engine::RunListener& progress, const std::atomic<bool>& stop);

// The newest checkpoint of the unfinished run in `dir` that reads back whole; a newer one that
// does not read is named on stderr and skipped. Throws UsageError, naming `dir`, when none reads,
// or when the one found does not fit `config` (load_resume_point).
ResumePoint checkpoint_to_resume(const config::Config& config, const std::filesystem::path& dir);

// Continues the unfinished run in `dir` (its config.toml, checkpoints and log.jsonl) from
// `point`, a checkpoint of it that load_resume_point found, to the end, writing summary.json.
// Checkpoints go on as in run_checkpointed_job. The shard crashes that ended earlier parts of
// the run (shard_crashes.h) are not injected again; one still ahead ends it as in
// run_checkpointed_job.
metrics::Summary resume_job(const config::Config& config, const std::filesystem::path& dir,
                            const ResumePoint& point, const std::string& continue_with,
                            engine::RunListener& progress, const std::atomic<bool>& stop);

}  // namespace hetps::cli
