#include "config/policy_job.h"

#include <optional>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cluster/cycled.h"
#include "config/file_digest.h"
#include "config/toml_writer.h"

namespace hetps::config {
namespace {

bool is_part_of_the_job(const std::string& key, const Config& config) {
  static const std::set<std::string> kNotPartOfTheJob = {
      "seed", "engine", "protocol.bsp_fraction", "protocol.policy_file", "train.eval_interval"};
  // A data set of one's own is whatever its directory holds (a path, not the files' digest:
  // copying it elsewhere warns, which errs on the safe side).
  if (key == "data.dir") return config.data.name == "idx";
  if (key.starts_with("run.") || kNotPartOfTheJob.contains(key)) return false;
  return key != "train.target_accuracy" || config.train.stop_at_target;
}

bool acts_on_the_simulator_only(const std::string& key) {
  static const std::set<std::string> kSimulatorOnly = {
      "cluster.worker_gflops", "cluster.apply_gbps", "cluster.compute_noise",
      "cluster.switch_overhead_pulls"};
  return kSimulatorOnly.contains(key);
}

// Per-worker lists are cycled over the workers, so [1, 0.5] and [1, 0.5, 1, 0.5] are one
// cluster of four: compared as one entry per worker.
Config with_an_entry_per_worker(Config config) {
  ClusterConfig& cluster = config.cluster;
  for (std::vector<double>* list :
       {&cluster.speeds, &cluster.link_gbps, &cluster.link_latency_ms}) {
    if (list->empty()) continue;
    std::vector<double> per_worker;
    for (int w = 0; w < cluster.workers; ++w) per_worker.push_back(cluster::cycled(*list, w));
    *list = std::move(per_worker);
  }
  return config;
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
  for (auto& [key, literal] : dotted_values(with_an_entry_per_worker(config))) {
    if (is_part_of_the_job(key, config)) settings[key] = std::move(literal);
  }
  if (!config.cluster.trace.empty()) {
    settings["cluster.trace"] = "file with FNV-1a " + file_digest(config.cluster.trace);
  }
  return settings;
}

std::optional<std::string> another_job_warning(const AppliedPolicy& applied, const Config& config) {
  const std::map<std::string, std::string>& there = applied.policy.job;
  if (there.empty()) return std::nullopt;  // written before hetps recorded the job
  const std::map<std::string, std::string> here = job_settings(config);
  std::set<std::string> keys;
  for (const auto* side : {&there, &here}) {
    for (const auto& entry : *side) keys.insert(entry.first);
  }
  // A setting missing there that the file's hetps did not know yet (one added since) acted
  // there as its built-in default does.
  static const std::map<std::string, std::string> kBuiltIn = job_settings(Config{});
  const auto value_there = [&](const std::string& key) -> std::optional<std::string> {
    if (there.contains(key)) return there.at(key);
    if (kBuiltIn.contains(key)) return kBuiltIn.at(key);
    return std::nullopt;
  };
  std::vector<std::string> differences;
  for (const std::string& key : keys) {
    if (config.engine != "sim" && acts_on_the_simulator_only(key)) continue;
    if (here.contains(key) && value_there(key) == here.at(key)) continue;
    differences.push_back(
        fmt::format("{} = {} there, {} here", key, shown(there, key), shown(here, key)));
  }
  if (differences.empty()) return std::nullopt;
  constexpr size_t kMostNamed = 8;
  std::string more;
  if (differences.size() > kMostNamed) {
    more = fmt::format("; and {} more", differences.size() - kMostNamed);
    differences.resize(kMostNamed);
  }
  return fmt::format(
      "protocol.policy_file {} was searched on another job than this run's, so its x = {} is not "
      "known to hold here: {}{}; search this job's x with `hetps tune sync-switch`",
      applied.file, applied.policy.chosen, fmt::join(differences, "; "), more);
}

}  // namespace hetps::config
