// The files of a run directory: config.toml (the resolved config, re-loadable with --config),
// log.jsonl (the run log, one JSON record a line), timeline.csv (where each worker's time went,
// metrics/activity_timeline.h) and summary.json.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "config/config.h"
#include "engine/engine.h"
#include "metrics/records.h"

namespace hetps::cli {

// A run's config.toml: `config` resolved, under a line saying how to run it again.
std::string config_file_text(const config::Config& config);
void write_config(const std::filesystem::path& dir, const config::Config& config);
void write_summary(const std::filesystem::path& dir, const metrics::Summary& summary);

// Writes the run log to `<dir>/log.jsonl` as the engine produces it, each line flushed so a
// running job can be followed with `tail -f`, and the timeline to `<dir>/timeline.csv`.
class RunLog : public engine::RunListener {
 public:
  explicit RunLog(const std::filesystem::path& dir);
  // Continues the log of a resumed run: what it holds past its first `keep_bytes` bytes was
  // written after the checkpoint the run resumes from, and is cut off. Throws
  // std::runtime_error naming the file when it is missing or shorter than that.
  RunLog(const std::filesystem::path& dir, uint64_t keep_bytes);

  void on_eval(const metrics::EvalRecord& record) override;
  void on_event(const nlohmann::json& record) override;
  void on_timeline(const metrics::ActivityTimeline& timeline) override;

  // The bytes written so far (a checkpoint records them).
  uint64_t bytes() const { return bytes_; }
  // The run directory was moved (StagedDirectory::commit): the open log moved with it.
  void moved_to(const std::filesystem::path& dir);

 private:
  void write_line(const nlohmann::json& record);

  std::filesystem::path file_;
  std::ofstream out_;
  uint64_t bytes_ = 0;
};

// A directory name for a run name: "ssp:staleness=8" -> "ssp_staleness_8". One longer than
// kLongestRunDirectoryName (an entry naming a policy file by a long path) is cut, and told
// apart from others cut alike by a digest of the whole name: a file system takes 255 bytes a
// name, and a staging directory adds ".tmp-<pid>.new" to it.
inline constexpr size_t kLongestRunDirectoryName = 200;
std::string run_directory_name(std::string_view run_name);

}  // namespace hetps::cli
