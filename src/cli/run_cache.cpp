#include "cli/run_cache.h"

#include <cstdint>
#include <fstream>
#include <iterator>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/input_files.h"
#include "cli/run_files.h"
#include "cli/usage_error.h"
#include "config/toml_writer.h"
#include "params/fnv1a.h"

namespace hetps::cli {

std::string config_hash(const config::Config& config) {
  uint64_t hash = params::fnv1a(config::to_toml_text(config));
  const nlohmann::json inputs = input_file_digests(config);
  if (!inputs.empty()) hash = params::fnv1a(inputs.dump(), hash);
  return fmt::format("{:016x}", hash);
}

std::optional<double> cached_final_accuracy(const std::filesystem::path& dir,
                                            const config::Config& config) {
  const std::filesystem::path file = dir / "summary.json";
  if (!std::filesystem::exists(file)) return std::nullopt;
  const std::filesystem::path config_file = dir / "config.toml";
  std::ifstream config_in(config_file, std::ios::binary);
  const std::string config_text{std::istreambuf_iterator<char>(config_in),
                                std::istreambuf_iterator<char>()};
  if (!config_in || config_text != config_file_text(config)) {
    throw UsageError(fmt::format(
        "{}: missing, or not the config this run's directory is named for (edited, or another "
        "run put there); remove the directory, or pass --force to run it again",
        config_file.string()));
  }
  try {
    std::ifstream in(file);
    return nlohmann::json::parse(in).at("final_accuracy").get<double>();
  } catch (const nlohmann::json::exception& error) {
    throw UsageError(
        fmt::format("{}: not a hetps run summary ({}); remove its directory to run it again",
                    file.string(), error.what()));
  }
}

}  // namespace hetps::cli
