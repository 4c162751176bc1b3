#include "cli/input_files.h"

#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "config/file_digest.h"
#include "data/load.h"

namespace hetps::cli {

nlohmann::json input_file_digests(const config::Config& config, KnownDigests* known) {
  nlohmann::json digests = nlohmann::json::object();
  const auto digest_of = [&](const std::string& file) {
    if (known == nullptr) return config::file_digest(file);
    const auto found = known->find(file);
    return found != known->end() ? found->second
                                 : known->emplace(file, config::file_digest(file)).first->second;
  };
  const auto add = [&](const std::string& setting, const std::string& file) {
    if (!file.empty()) digests[setting] = {{"file", file}, {"fnv1a", digest_of(file)}};
  };
  add("cluster.trace", config.cluster.trace);
  // The data set is read from files too: one swapped for another would resume on other data.
  for (const std::filesystem::path& file : data::data_files(config.data)) {
    add("data file " + file.filename().string(), file.string());
  }
  for (const char* param : {"policy_file", "agent_file"}) {
    const auto value = config.protocol.params.find(param);
    if (value != config.protocol.params.end()) {
      if (const auto* file = std::get_if<std::string>(&value->second)) {
        add(fmt::format("protocol.{}", param), *file);
      }
    }
  }
  return digests;
}

std::string changed_input_file(const nlohmann::json& saved, const nlohmann::json& now) {
  for (const auto& [setting, digest] : saved.items()) {
    // One that cannot be read now is not called changed: reading it for the run names what
    // is wrong with it (missing, a directory). Nor one that could not be read then: no run can
    // have used it (a comparison planned before its data set was fetched).
    if (now.contains(setting) && now.at(setting).at("fnv1a") == config::kUnreadableFile) continue;
    if (digest.value("fnv1a", std::string()) == config::kUnreadableFile) continue;
    if (!now.contains(setting) || now.at(setting) != digest) {
      return fmt::format("{} ({})", setting, digest.value("file", std::string("?")));
    }
  }
  return "";
}

}  // namespace hetps::cli
