#include "config/switch_policy.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "config/atomic_file.h"
#include "config/error.h"
#include "config/json_fields.h"
#include "data/file_kind.h"

namespace hetps::config {
namespace {

constexpr const char* kFormat = "hetps-sync-switch-policy";
constexpr int kVersion = 1;

void check_header(const JsonFields& reader, const nlohmann::json& json) {
  reader.check_object(json, "the policy", "a JSON object");
  if (reader.text(json, "format", "format") != kFormat) {
    reader.reject("format", fmt::format("\"{}\"", kFormat), json.at("format"));
  }
  const nlohmann::json& version = reader.field(json, "version", "version");
  if (version != kVersion) reader.reject("version", fmt::format("{}", kVersion), version);
}

std::vector<PolicyCandidate> read_candidates(const JsonFields& reader, const nlohmann::json& json) {
  const nlohmann::json& list = reader.list(json, "candidates", "candidates", "a list");
  std::vector<PolicyCandidate> candidates;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = fmt::format("candidates[{}]", i);
    reader.check_object(list[i], path);
    candidates.push_back(
        {reader.number(list[i], "bsp_fraction", path + ".bsp_fraction", 0, 1, true),
         reader.number(list[i], "accuracy", path + ".accuracy", 0, 1),
         reader.text(list[i], "run", path + ".run")});
  }
  return candidates;
}

// The job is printed in a warning when it differs from a run's: what a hand-edited file could
// put in a terminal is refused (a setting's name is lower-case letters, digits, '_' and '.', and
// a value one line of text).
std::map<std::string, std::string> read_job(const JsonFields& reader, const nlohmann::json& json) {
  const nlohmann::json& job = json.at("job");
  reader.check_object(job, "job", "an object of settings, each a TOML value as text");
  const auto is_name = [](const std::string& key) {
    return !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
    });
  };
  const auto is_one_line = [](const std::string& text) {
    return std::none_of(text.begin(), text.end(),
                        [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
  };
  std::map<std::string, std::string> settings;
  for (const auto& [key, value] : job.items()) {
    if (!is_name(key)) reader.reject("job", "keyed by setting names", key);
    const std::string path = "job." + key;
    const std::string text = reader.text(job, key, path);
    if (!is_one_line(text)) reader.reject(path, "one line of text", value);
    settings[key] = text;
  }
  return settings;
}

}  // namespace

nlohmann::json to_json(const SwitchPolicy& policy) {
  nlohmann::json candidates = nlohmann::json::array();
  for (const PolicyCandidate& candidate : policy.candidates) {
    candidates.push_back({{"bsp_fraction", candidate.bsp_fraction},
                          {"accuracy", candidate.accuracy},
                          {"run", candidate.run}});
  }
  nlohmann::json json = {{"format", kFormat},
                         {"version", kVersion},
                         {"chosen", policy.chosen},
                         {"bsp_accuracy", policy.bsp_accuracy},
                         {"bsp_run", policy.bsp_run},
                         {"tolerance", policy.tolerance},
                         {"candidates", std::move(candidates)},
                         {"config_hash", policy.config_hash},
                         {"seed", policy.seed}};
  if (!policy.job.empty()) json["job"] = policy.job;
  return json;
}

SwitchPolicy switch_policy_from_json(const nlohmann::json& json, const std::string& file) {
  const JsonFields reader(file);
  check_header(reader, json);
  SwitchPolicy policy;
  policy.chosen = reader.number(json, "chosen", "chosen", 0, 1, true);
  policy.bsp_accuracy = reader.number(json, "bsp_accuracy", "bsp_accuracy", 0, 1);
  policy.bsp_run = reader.text(json, "bsp_run", "bsp_run");
  policy.tolerance = reader.number(json, "tolerance", "tolerance", 0, 1);
  policy.candidates = read_candidates(reader, json);
  // The file records a search: its x is BSP's 1 or one it tried. Any other x was typed in, and
  // `protocol.bsp_fraction` is where a run takes an x of the user's own.
  const bool tried = std::any_of(
      policy.candidates.begin(), policy.candidates.end(),
      [&](const PolicyCandidate& candidate) { return candidate.bsp_fraction == policy.chosen; });
  if (policy.chosen != 1 && !tried) {
    reader.reject("chosen",
                  "1 or the bsp_fraction of one of the candidates (to train with another x, set "
                  "protocol.bsp_fraction instead of protocol.policy_file)",
                  json.at("chosen"));
  }
  policy.config_hash = reader.text(json, "config_hash", "config_hash");
  const nlohmann::json& seed = reader.field(json, "seed", "seed");
  if (!seed.is_number_unsigned()) reader.reject("seed", "an integer >= 0", seed);
  policy.seed = seed.get<uint64_t>();
  if (json.contains("job")) policy.job = read_job(reader, json);
  return policy;
}

SwitchPolicy read_switch_policy(const std::filesystem::path& file) {
  if (const std::string kind = data::irregular_file_kind(file); !kind.empty()) {
    throw ConfigError(
        fmt::format("cannot read policy file {}: {}; expected a file", file.string(), kind));
  }
  std::ifstream in(file);
  if (!in) {
    throw ConfigError(fmt::format("cannot read policy file {}: {}", file.string(),
                                  std::error_code(errno, std::generic_category()).message()));
  }
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& error) {
    throw ConfigError(fmt::format("{}: invalid JSON: {}", file.string(), error.what()));
  }
  return switch_policy_from_json(json, file.string());
}

void write_switch_policy(const std::filesystem::path& file, const SwitchPolicy& policy) {
  write_file_atomically(file, to_json(policy).dump(2) + '\n', "policy file");
}

std::optional<AppliedPolicy> apply_policy_file(ProtocolParams& params, const GivenParams& given) {
  const auto file = params.find("policy_file");
  if (file == params.end() || std::get<std::string>(file->second).empty()) return std::nullopt;
  // A non-empty value is never the default, so it was given.
  const std::string& where = given.at("policy_file").where;
  if (const auto fraction = given.find("bsp_fraction"); fraction != given.end()) {
    throw ConfigError(fmt::format(
        "{}: protocol.bsp_fraction and protocol.policy_file (given at {}) both set Sync-Switch's "
        "switch point; set only one of them",
        fraction->second.where, where));
  }
  AppliedPolicy applied{std::get<std::string>(file->second), {}};
  try {
    applied.policy = read_switch_policy(applied.file);
  } catch (const ConfigError& error) {
    throw ConfigError(fmt::format("{}: {}", where, error.what()));
  }
  params["bsp_fraction"] = applied.policy.chosen;
  file->second = std::string();  // the x is recorded instead: see the header
  return applied;
}

}  // namespace hetps::config
