#include "cli/shard_crashes.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "checkpoint/checkpoint_error.h"
#include "checkpoint/saved_integers.h"
#include "config/atomic_file.h"

namespace hetps::cli {
namespace {

std::filesystem::path crashes_file(const std::filesystem::path& run_dir) {
  return run_dir / "shard_crashes.json";
}

// The crashes the file lists, as it stands; none without the file.
nlohmann::json recorded_crashes(const std::filesystem::path& file) {
  if (!std::filesystem::exists(file)) return nlohmann::json::array();
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  try {
    nlohmann::json crashes = nlohmann::json::parse(text.str()).at("shard_crashes");
    if (!crashes.is_array()) throw std::invalid_argument("shard_crashes is not a list");
    return crashes;
  } catch (const std::exception& error) {
    throw checkpoint::CheckpointError(
        fmt::format("{}: expected {{\"shard_crashes\": [{{\"shard\": S, \"time\": T}}, ...]}} ({})",
                    file.string(), error.what()));
  }
}

void record_crash(const std::filesystem::path& run_dir, const engine::ShardCrashed& crash) {
  const std::filesystem::path file = crashes_file(run_dir);
  nlohmann::json crashes = recorded_crashes(file);
  crashes.push_back({{"shard", crash.shard()}, {"time", crash.time()}});
  config::write_file_atomically(file, nlohmann::json{{"shard_crashes", crashes}}.dump(2) + "\n",
                                "record of server-shard crashes");
}

std::string why_lost(const config::Config& config, bool takes_checkpoints) {
  if (!takes_checkpoints) {
    return "this run takes no checkpoints (only `hetps train` and `hetps compare` do)";
  }
  if (config.run.checkpoint_interval <= 0) {
    return "no checkpoint was taken (run.checkpoint_interval = 0)";
  }
  return fmt::format("no checkpoint was taken before it (run.checkpoint_interval = {})",
                     config.run.checkpoint_interval);
}

}  // namespace

engine::ShardCrashed run_ended_by(const engine::ShardCrashed& crash, const config::Config& config,
                                  const std::filesystem::path& run_dir,
                                  const std::optional<std::string>& continue_with,
                                  const std::optional<SavedCheckpoint>& last) {
  if (!last || !continue_with) {
    return engine::ShardCrashed(
        crash.shard(), crash.time(),
        fmt::format("{}: its part of the model is gone, and the run is lost: {}", crash.what(),
                    why_lost(config, continue_with.has_value())));
  }
  record_crash(run_dir, crash);
  return engine::ShardCrashed(
      crash.shard(), crash.time(),
      fmt::format("{}: its part of the model is gone, so the run ended there. Its last "
                  "checkpoint, {} (at {:.3f} s of run time), is intact; continue with: {}",
                  crash.what(), last->file.string(), last->time, *continue_with));
}

std::vector<int> crashed_shards(const std::filesystem::path& run_dir,
                                const config::Config& config) {
  const std::filesystem::path file = crashes_file(run_dir);
  std::vector<int> shards;
  for (const nlohmann::json& entry : recorded_crashes(file)) {
    config::ShardFailure crash;
    try {
      crash = {checkpoint::integer<int>(entry.at("shard")), entry.at("time").get<double>()};
    } catch (const nlohmann::json::exception& error) {
      throw checkpoint::CheckpointError(
          fmt::format("{}: a crash {}: {}", file.string(), entry.dump(), error.what()));
    } catch (const checkpoint::CheckpointError& error) {
      throw checkpoint::CheckpointError(
          fmt::format("{}: a crash {}: shard: {}", file.string(), entry.dump(), error.what()));
    }
    if (std::ranges::find(config.cluster.shard_failures, crash) ==
        config.cluster.shard_failures.end()) {
      throw checkpoint::CheckpointError(fmt::format(
          "{} records a crash of server shard {} at {} s, which cluster.shard_failures of this "
          "run does not inject: the file belongs to another run",
          file.string(), crash.shard, crash.time));
    }
    if (std::ranges::find(shards, crash.shard) == shards.end()) shards.push_back(crash.shard);
  }
  return shards;
}

}  // namespace hetps::cli
