// A run ended by an injected server-shard crash (`cluster.shard_failures`, engine::ShardCrashed),
// as the command line handles it: the message says what survives and how to go on, and the run
// directory remembers the crash, so that `hetps train --resume` (or `hetps compare --resume`) does
// not inject it again.
//
// Why a file of its own, `<run dir>/shard_crashes.json` ({"shard_crashes": [{"shard": 1,
// "time": 2.0}, ...]}, written atomically): the crash comes after the last checkpoint, so no
// checkpoint holds it; the run log records it (`shard_failed`), but `--resume` cuts the log
// back to the checkpoint's length; and config.toml must not change, or `--resume` refuses the
// checkpoint. The file outlives those: each crash that ends a part of the run is added to it,
// and every resume skips them all (engine::RunCheckpoints::crashed_shards), while a crash still
// ahead of the resumed run comes as configured. A run killed between the crash and the write
// lacks the entry, and meets the crash again on resume: written then.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "engine/shard_failures.h"

namespace hetps::cli {

// A checkpoint of the run, as the command line saved or resumed from it.
struct SavedCheckpoint {
  std::filesystem::path file;
  double time = 0;  // engine seconds
};

// The error the command line ends with when `crash` ended the run in `run_dir`: its message names
// the shard and the time, then either the run's newest checkpoint `last` (file and run time),
// intact, and "continue with: " `continue_with` (the command that continues the run, e.g.
// "hetps train --resume DIR"), or says the run is lost and why: no checkpoint was taken (naming
// run.checkpoint_interval), or the run takes none (no `continue_with`: run_job's, for tune).
// With a checkpoint, records the crash in `run_dir` first.
engine::ShardCrashed run_ended_by(const engine::ShardCrashed& crash, const config::Config& config,
                                  const std::filesystem::path& run_dir,
                                  const std::optional<std::string>& continue_with,
                                  const std::optional<SavedCheckpoint>& last);

// The shards whose crashes ended earlier parts of the run in `run_dir` (none without the file).
// Throws checkpoint::CheckpointError naming the file when it does not read, or names a crash
// `config` does not inject.
std::vector<int> crashed_shards(const std::filesystem::path& run_dir, const config::Config& config);

}  // namespace hetps::cli
