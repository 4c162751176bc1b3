#include "config/policy_job.h"

#include <set>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "config/switch_policy.h"
#include "config/toml_writer.h"
#include "config/values.h"

namespace hetps::config {
namespace {

bool changes_which_x_holds(const std::string& key) {
  static const std::set<std::string> kOthers = {"seed", "engine", "data.dir",
                                                "protocol.bsp_fraction", "protocol.policy_file"};
  return !key.starts_with("run.") && !kOthers.contains(key);
}

void add_settings(const toml::table& table, const std::string& prefix,
                  std::map<std::string, std::string>& settings) {
  for (const auto& [name, node] : table) {
    const std::string key = prefix + std::string(name.str());
    if (const toml::table* inner = node.as_table()) {
      add_settings(*inner, key + ".", settings);
    } else if (changes_which_x_holds(key)) {
      settings[key] = toml_literal(node);
    }
  }
}

// A value as the warning shows it: a list of one entry per worker, at 64 workers, would bury
// the other settings, so a long value is cut to its start.
std::string shown(const std::map<std::string, std::string>& settings, const std::string& key) {
  constexpr size_t kLongest = 48;
  const auto value = settings.find(key);
  if (value == settings.end()) return "not set";
  if (value->second.size() <= kLongest) return value->second;
  return value->second.substr(0, kLongest - 4) + " ...";
}

}  // namespace

std::map<std::string, std::string> job_settings(const Config& config) {
  std::map<std::string, std::string> settings;
  add_settings(to_toml(config), "", settings);
  return settings;
}

std::optional<std::string> policy_of_another_job(const UserSettings& settings,
                                                 const Config& config) {
  Config scratch;
  const GivenParams given = settings.apply_to(scratch);
  const auto file = given.find("policy_file");
  if (file == given.end()) return std::nullopt;
  const auto* path = std::get_if<std::string>(&file->second.value);
  if (path == nullptr || path->empty()) return std::nullopt;
  const SwitchPolicy policy = read_switch_policy(*path);
  if (policy.job.empty()) return std::nullopt;  // written before hetps recorded the job

  const std::map<std::string, std::string> here = job_settings(config);
  std::set<std::string> keys;
  for (const auto* side : {&policy.job, &here}) {
    for (const auto& entry : *side) keys.insert(entry.first);
  }
  std::vector<std::string> differences;
  for (const std::string& key : keys) {
    if (policy.job.contains(key) && here.contains(key) && policy.job.at(key) == here.at(key)) {
      continue;
    }
    differences.push_back(
        fmt::format("{} = {} there, {} here", key, shown(policy.job, key), shown(here, key)));
  }
  if (differences.empty()) return std::nullopt;
  return fmt::format(
      "protocol.policy_file {} was searched on another job than this run's, so its x = {} is not "
      "known to hold here: {}; search this job's x with `hetps tune sync-switch`",
      *path, policy.chosen, fmt::join(differences, "; "));
}

}  // namespace hetps::config
