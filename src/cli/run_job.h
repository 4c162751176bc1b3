// One training job, from a resolved config to a finished run directory.
#pragma once

#include <filesystem>

#include "config/config.h"
#include "engine/engine.h"
#include "metrics/records.h"

namespace hetps::cli {

// Throws ConfigError when `model.name` is not a registered model or `data.name` not a known
// data set: the checks the libtorch-free config layer cannot make. Call it before loading data.
void check_names(const config::Config& config);

// Loads the data and trains `config` on its engine, reporting to `listener`. A missing or
// corrupt data file or `cluster.trace` is bad input: it throws UsageError with the
// data::DataError's message.
metrics::Summary train_job(const config::Config& config, engine::RunListener& listener);

// Loads the data, builds the model and trains `config` on its engine, writing config.toml,
// log.jsonl and summary.json into `dir`. Evaluations also go to `progress`. Throws UsageError
// (bad input) with the data::DataError's message for a missing or corrupt data file or
// `cluster.trace`.
metrics::Summary run_job(const config::Config& config, const std::filesystem::path& dir,
                         engine::RunListener& progress);

}  // namespace hetps::cli
