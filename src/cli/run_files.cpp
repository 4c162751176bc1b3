#include "cli/run_files.h"

#include <cctype>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

#include "cli/usage_error.h"
#include "config/atomic_file.h"
#include "config/toml_writer.h"
#include "params/fnv1a.h"

namespace hetps::cli {
namespace {

void write_file(const std::filesystem::path& file, std::string_view text) {
  config::write_file_atomically(file, text, "run file");
}

}  // namespace

std::string config_file_text(const config::Config& config) {
  return "# The resolved configuration of this run: `hetps train --config config.toml` runs it "
         "again.\n" +
         config::to_toml_text(config);
}

void write_config(const std::filesystem::path& dir, const config::Config& config) {
  write_file(dir / "config.toml", config_file_text(config));
}

void write_summary(const std::filesystem::path& dir, const metrics::Summary& summary) {
  write_file(dir / "summary.json", metrics::to_json(summary).dump(2) + "\n");
}

RunLog::RunLog(const std::filesystem::path& dir) : file_(dir / "log.jsonl"), out_(file_) {
  if (!out_) throw std::runtime_error(fmt::format("cannot write {}", file_.string()));
}

RunLog::RunLog(const std::filesystem::path& dir, uint64_t keep_bytes)
    : file_(dir / "log.jsonl"), bytes_(keep_bytes) {
  std::error_code error;
  const uint64_t size = std::filesystem::file_size(file_, error);
  // A run directory damaged since the checkpoint: bad input, as a damaged checkpoint is.
  if (error || size < keep_bytes) {
    const std::string found = error == std::errc::no_such_file_or_directory ? "it is missing"
                              : error ? fmt::format("it cannot be read: {}", error.message())
                                      : fmt::format("it holds only {}", size);
    throw UsageError(fmt::format(
        "cannot resume the run log {}: it should hold at least the {} bytes written before the "
        "checkpoint, but {}",
        file_.string(), keep_bytes, found));
  }
  std::filesystem::resize_file(file_, keep_bytes);
  out_.open(file_, std::ios::app);
  if (!out_) throw std::runtime_error(fmt::format("cannot write {}", file_.string()));
}

void RunLog::moved_to(const std::filesystem::path& dir) { file_ = dir / "log.jsonl"; }

void RunLog::on_eval(const metrics::EvalRecord& record) { write_line(metrics::to_json(record)); }

void RunLog::on_event(const nlohmann::json& record) { write_line(record); }

void RunLog::on_timeline(const metrics::ActivityTimeline& timeline) {
  std::ostringstream csv;
  metrics::write_csv(csv, timeline);
  write_file(file_.parent_path() / "timeline.csv", csv.str());
}

void RunLog::write_line(const nlohmann::json& record) {
  const std::string line = record.dump() + '\n';
  out_ << line << std::flush;
  bytes_ += line.size();
  if (!out_) throw std::runtime_error(fmt::format("cannot write {}", file_.string()));
}

std::string run_directory_name(std::string_view run_name) {
  std::string name(run_name);
  for (char& c : name) {
    const bool safe =
        std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
    if (!safe) c = '_';
  }
  if (name.size() <= kLongestRunDirectoryName) return name;
  const std::string digest = fmt::format("-{:016x}", params::fnv1a(run_name));
  return name.substr(0, kLongestRunDirectoryName - digest.size()) + digest;
}

}  // namespace hetps::cli
