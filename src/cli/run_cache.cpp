#include "cli/run_cache.h"

#include <cstdint>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/input_files.h"
#include "config/toml_writer.h"
#include "params/fnv1a.h"

namespace hetps::cli {

std::string config_hash(const config::Config& config) {
  uint64_t hash = params::fnv1a(config::to_toml_text(config));
  const nlohmann::json inputs = input_file_digests(config);
  if (!inputs.empty()) hash = params::fnv1a(inputs.dump(), hash);
  return fmt::format("{:016x}", hash);
}

std::optional<double> cached_final_accuracy(const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / "summary.json";
  if (!std::filesystem::exists(file)) return std::nullopt;
  try {
    std::ifstream in(file);
    return nlohmann::json::parse(in).at("final_accuracy").get<double>();
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error(
        fmt::format("{}: not a hetps run summary ({}); remove its directory to run it again",
                    file.string(), error.what()));
  }
}

}  // namespace hetps::cli
