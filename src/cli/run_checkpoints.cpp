#include "cli/run_checkpoints.h"

#include <cstdio>

#include <fmt/format.h>

#include "checkpoint/checkpoint_error.h"
#include "checkpoint/checkpoint_store.h"
#include "checkpoint/saved_integers.h"
#include "cli/input_files.h"
#include "config/error.h"
#include "config/resolve.h"
#include "config/settings.h"
#include "config/toml_writer.h"

namespace hetps::cli {
namespace {

checkpoint::CheckpointStore store_of(const std::filesystem::path& run_dir,
                                     const config::Config& config) {
  return checkpoint::CheckpointStore(run_dir / "checkpoints", config.run.checkpoint_keep);
}

// The config a checkpoint was saved with, as this hetps reads it: a key added to hetps since
// the checkpoint was taken takes its default, as the run that took it behaved.
std::string config_as_read_now(const std::string& saved, const std::filesystem::path& file) {
  config::UserSettings settings;
  settings.add_text(saved, file.string() + " (the config it was taken with)");
  return config::to_toml_text(config::resolve(settings, {.written_by_hetps = true}));
}

}  // namespace

std::filesystem::path save_run_checkpoint(const std::filesystem::path& run_dir,
                                          const config::Config& config,
                                          const nlohmann::json& inputs, uint64_t log_bytes,
                                          double time, const nlohmann::json& engine_state) {
  return store_of(run_dir, config)
      .save({{"config", config::to_toml_text(config)},
             {"inputs", inputs},
             {"time", time},
             {"log_bytes", log_bytes},
             {"engine", engine_state}});
}

ResumePoint load_resume_point(const std::filesystem::path& run_dir, const config::Config& config,
                              const std::function<void(const std::string&)>& refused) {
  checkpoint::CheckpointStore::Found found = store_of(run_dir, config).load_latest(refused);
  const auto refuse = [&](const char* why) {
    return checkpoint::CheckpointError(fmt::format("checkpoint {}: {}", found.file.string(), why));
  };
  const std::string now = config::to_toml_text(config);
  bool same_config = false;
  try {
    const std::string saved = found.state.at("config").get<std::string>();
    same_config = saved == now || config_as_read_now(saved, found.file) == now;
  } catch (const nlohmann::json::exception& error) {
    throw refuse(error.what());
  } catch (const config::ConfigError& error) {
    throw refuse(error.what());
  }
  if (!same_config) {
    throw checkpoint::CheckpointError(
        fmt::format("checkpoint {} was taken by a run with another config than {}: a checkpoint "
                    "resumes only the run that took it",
                    found.file.string(), (run_dir / "config.toml").string()));
  }
  // Checkpoints from before the digests were kept hold none: nothing to compare then.
  if (found.state.contains("inputs")) {
    const std::string changed =
        changed_input_file(found.state.at("inputs"), input_file_digests(config));
    if (!changed.empty()) {
      throw checkpoint::CheckpointError(fmt::format(
          "checkpoint {} was taken while {} held other contents than it holds now: a checkpoint "
          "resumes only the run that took it; put back the file the run started with",
          found.file.string(), changed));
    }
  }
  ResumePoint point;
  point.file = found.file;
  try {
    point.time = found.state.at("time").get<double>();
    point.log_bytes = checkpoint::integer<uint64_t>(found.state.at("log_bytes"));
    point.engine_state = std::move(found.state.at("engine"));
  } catch (const nlohmann::json::exception& error) {
    throw refuse(error.what());
  } catch (const checkpoint::CheckpointError& error) {
    throw refuse(error.what());
  }
  return point;
}

void warn_skipped_checkpoint(const std::string& refusal) {
  fmt::print(stderr, "hetps: warning: {}; trying the checkpoint before it\n", refusal);
}

}  // namespace hetps::cli
