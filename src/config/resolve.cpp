#include "config/resolve.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "config/error.h"
#include "config/scenarios.h"
#include "protocol/registry.h"

namespace hetps::config {
namespace {

// The known keys of the [protocol] table for `info`: its name and its parameters.
std::string protocol_keys(const protocol::ProtocolInfo& info) {
  std::vector<std::string> keys = {"name"};
  for (const auto& spec : info.params) keys.push_back(spec.name);
  return fmt::format("{}", fmt::join(keys, ", "));
}

std::string describe(const ParamValue& value) {
  if (const auto* word = std::get_if<std::string>(&value)) return fmt::format("\"{}\"", *word);
  return fmt::format("{}", std::get<double>(value));
}

ProtocolParams protocol_params(const protocol::ProtocolInfo& info, const GivenParams& given,
                               const ResolveOptions& options) {
  ProtocolParams params;
  for (const auto& [name, param] : given) {
    const protocol::ParamSpec* spec = info.find_param(name);
    if (!spec) {
      if (options.skip_foreign_params) continue;
      throw ConfigError(fmt::format("{}: unknown key protocol.{}; protocol {} has: {}", param.where,
                                    name, info.name, protocol_keys(info)));
    }
    if (const auto why = protocol::check_param(*spec, param.value)) {
      throw ConfigError(fmt::format("{}: protocol.{} (a parameter of {}): {}, got {}", param.where,
                                    name, info.name, *why, describe(param.value)));
    }
    params[name] = param.value;
  }
  return protocol::complete_params(info, params);
}

}  // namespace

Config resolve(const UserSettings& settings, const ResolveOptions& options) {
  // A first pass only learns which scenario and protocol the user chose (and rejects bad
  // input early); the second applies the user's settings over that scenario's defaults.
  Config chosen;
  settings.apply_to(chosen);

  Config config;
  apply_scenario(*find_scenario(chosen.cluster.scenario), config.cluster);
  if (const auto defaults = training_defaults(chosen.cluster.scenario, chosen.protocol.name)) {
    apply_training_defaults(*defaults, config);
  }
  const GivenParams given = settings.apply_to(config);
  config.protocol.params =
      protocol_params(*protocol::find_protocol(config.protocol.name), given, options);
  if (config.run.name.empty()) config.run.name = config.protocol.name;
  check_consistency(config);
  return config;
}

void check_consistency(const Config& config) {
  const ClusterConfig& cluster = config.cluster;
  for (size_t i = 0; i < cluster.stragglers.size(); ++i) {
    const int worker = cluster.stragglers[i].worker;
    if (worker >= cluster.workers) {
      throw ConfigError(fmt::format(
          "cluster.stragglers[{}].worker must be a worker id below cluster.workers ({}), got {}", i,
          cluster.workers, worker));
    }
  }
  const RandomStragglers& random = cluster.random_stragglers;
  if (random.slowdown_max < random.slowdown_min) {
    throw ConfigError(
        fmt::format("cluster.random_stragglers.slowdown_max must be >= slowdown_min ({}), got {}",
                    random.slowdown_min, random.slowdown_max));
  }
  if (config.train.lr_schedule == "step" && config.train.lr_step_samples == 0) {
    throw ConfigError(
        "train.lr_step_samples must be >= 1 with train.lr_schedule = \"step\", got 0");
  }
}

}  // namespace hetps::config
