// A run directory's checkpoints as the command line keeps them, in `<run dir>/checkpoints/`
// (checkpoint/checkpoint_store.h). Beside the engine's state each holds the run's resolved
// config, so that a checkpoint resumes only the run that took it, and the length of log.jsonl
// when it was taken, so that resume cuts off what was logged after it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "config/config.h"

namespace hetps::cli {

// Saves the next checkpoint of the run in `run_dir`, with `inputs` (input_file_digests of its
// config, taken as the run started); returns its file.
std::filesystem::path save_run_checkpoint(const std::filesystem::path& run_dir,
                                          const config::Config& config,
                                          const nlohmann::json& inputs, uint64_t log_bytes,
                                          double time, const nlohmann::json& engine_state);

struct ResumePoint {
  std::filesystem::path file;
  double time = 0;  // engine seconds
  uint64_t log_bytes = 0;
  nlohmann::json engine_state;
};

// The newest checkpoint in `run_dir` that reads back whole; each newer one that does not is
// named to `refused`, with the reason. Throws checkpoint::CheckpointError when none reads, and
// when the one found was taken with another config than `config`.
ResumePoint load_resume_point(const std::filesystem::path& run_dir, const config::Config& config,
                              const std::function<void(const std::string&)>& refused);

// What the command line does with a checkpoint load_resume_point skips: names it on stderr.
void warn_skipped_checkpoint(const std::string& refusal);

}  // namespace hetps::cli
