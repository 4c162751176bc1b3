#include "config/resolve.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cluster/trace.h"
#include "cluster/validate.h"
#include "config/error.h"
#include "config/policy_job.h"
#include "config/scenarios.h"
#include "config/switch_policy.h"
#include "data/dataset.h"
#include "protocol/registry.h"
#include "protocol/sync_switch.h"

namespace hetps::config {
namespace {

// A setting given (at `where`) outside the mode it acts in: `mode_key` is `actual`, not one of
// `modes`. A value that would do nothing is refused, for protocol parameters
// (ParamSpec::only_with) and config keys alike.
ConfigError idle_setting(std::string_view where, std::string_view key, std::string_view mode_key,
                         const std::vector<std::string>& modes, std::string_view actual) {
  return ConfigError(
      fmt::format("{}: {} acts only with {} = \"{}\"; {} is \"{}\", so it would do nothing", where,
                  key, mode_key, fmt::join(modes, "\" or \""), mode_key, actual));
}

ProtocolParams protocol_params(const protocol::ProtocolInfo& info, const GivenParams& given,
                               const ResolveOptions& options) {
  const auto shared = [&](const GivenParam& param) {
    return options.compare_entry && param.where != *options.compare_entry;
  };
  ProtocolParams params;
  for (const auto& [name, param] : given) {
    if (shared(param) && !info.find_param(name)) continue;
    try {
      // One parameter at a time, so that the registry's message can be prefixed with where
      // the failing value was given.
      protocol::complete_params(info, {{name, param.value}});
    } catch (const std::invalid_argument& error) {
      throw ConfigError(fmt::format("{}: {}", param.where, error.what()));
    }
    params[name] = param.value;
  }
  // A value that would do nothing is refused; the default is not, as a run's own config.toml,
  // which holds every parameter, must read back; nor any in a config hetps wrote, which an
  // earlier hetps may have taken.
  if (!options.written_by_hetps) {
    const ProtocolParams complete = protocol::complete_params(info, params);
    for (const auto& [name, param] : given) {
      const protocol::ParamSpec* spec = info.find_param(name);
      if (spec == nullptr || param.value == spec->default_value || spec->acts_with(complete)) {
        continue;
      }
      if (shared(param)) {
        params.erase(name);
        continue;
      }
      const auto& [other, values] = *spec->only_with;
      throw idle_setting(param.where, "protocol." + name, "protocol." + other, values,
                         std::get<std::string>(complete.at(other)));
    }
  }
  if (options.shared_params_taken != nullptr) {
    for (const auto& [name, param] : given) {
      if (shared(param) && params.contains(name)) options.shared_params_taken->insert(name);
    }
  }
  return protocol::complete_params(info, params);
}

// Settings that act only in another's mode (a step schedule's step, the simulator's switch
// cost and its model of compute and of the server, the class count of a data set of one's own,
// the classes of a non-iid worker, the generated set's sizes, the folder of the sets read from
// files), given a value other
// than their default outside it, would do nothing: refused, as a protocol parameter's are
// (ParamSpec::only_with). The default is not, as a run's config.toml holds every key and must read
// back.
void refuse_idle_settings(const UserSettings& settings, const Config& config,
                          const ResolveOptions& options) {
  const Config defaults;
  const auto refuse_if = [&](bool idle, std::string_view key, std::string_view mode_key,
                             const std::vector<std::string>& modes, const std::string& actual) {
    if (!idle) return;
    if (const std::optional<std::string> where = settings.where_set(key)) {
      throw idle_setting(*where, key, mode_key, modes, actual);
    }
  };
  const bool stepped = config.train.lr_schedule == "step";
  refuse_if(!stepped && config.train.lr_step_samples != defaults.train.lr_step_samples,
            "train.lr_step_samples", "train.lr_schedule", {"step"}, config.train.lr_schedule);
  refuse_if(!stepped && config.train.lr_step_gamma != defaults.train.lr_step_gamma,
            "train.lr_step_gamma", "train.lr_schedule", {"step"}, config.train.lr_schedule);
  // A first step at or past the budget's end: the learning rate never moves.
  if (stepped && config.train.lr_step_samples >= config.train.max_samples) {
    const std::optional<std::string> where = settings.where_set("train.lr_step_samples");
    // The budget may be another's than the user's (`tune petrel`'s episodes set their own).
    const std::optional<std::string> budget_from = settings.where_set("train.max_samples");
    throw ConfigError(fmt::format(
        "{}train.lr_step_samples = {}: the run's budget (train.max_samples = {}{}) ends before "
        "the first step, so train.lr_schedule = \"step\" would do nothing; expected fewer "
        "samples than the budget",
        where ? *where + ": " : "", config.train.lr_step_samples, config.train.max_samples,
        budget_from ? ", from " + *budget_from : ""));
  }
  refuse_if(config.data.name != "idx" && config.data.classes != defaults.data.classes,
            "data.classes", "data.name", {"idx"}, config.data.name);
  const bool generated = config.data.name == "synthetic";
  refuse_if(generated && config.data.dir != defaults.data.dir, "data.dir", "data.name",
            {"fashion-mnist", "mnist", "idx"}, config.data.name);
  refuse_if(!generated && config.data.synthetic_train != defaults.data.synthetic_train,
            "data.synthetic_train", "data.name", {"synthetic"}, config.data.name);
  refuse_if(!generated && config.data.synthetic_test != defaults.data.synthetic_test,
            "data.synthetic_test", "data.name", {"synthetic"}, config.data.name);
  refuse_if(config.data.partition != "noniid" &&
                config.data.classes_per_worker != defaults.data.classes_per_worker,
            "data.classes_per_worker", "data.partition", {"noniid"}, config.data.partition);
  // The simulator's model of compute and of the server: a real engine has real ones.
  const ClusterConfig& cluster = config.cluster;
  // The same test, with a number for the switch: a setting that acts only while `number_key`
  // is above 0.
  const auto refuse_unless_positive = [&](bool idle, std::string_view key,
                                          std::string_view number_key) {
    if (!idle) return;
    if (const std::optional<std::string> where = settings.where_set(key)) {
      throw ConfigError(fmt::format("{}: {} acts only with {} > 0; it is 0, so it would do nothing",
                                    *where, key, number_key));
    }
  };
  // Nesterov's look-ahead is along the momentum: without any it is plain SGD. The momentum may
  // be a protocol's frozen one (ASP's 0), so compare checks that some entry has one instead.
  refuse_unless_positive(
      config.train.nesterov && config.train.momentum == 0 && !options.compare_entry,
      "train.nesterov", "train.momentum");
  // Random stragglers' episodes, without any.
  const RandomStragglers& random = cluster.random_stragglers;
  for (const auto& [key, value, default_value] :
       {std::tuple{"cluster.random_stragglers.mean_duration", random.mean_duration,
                   defaults.cluster.random_stragglers.mean_duration},
        std::tuple{"cluster.random_stragglers.slowdown_min", random.slowdown_min,
                   defaults.cluster.random_stragglers.slowdown_min},
        std::tuple{"cluster.random_stragglers.slowdown_max", random.slowdown_max,
                   defaults.cluster.random_stragglers.slowdown_max}}) {
    refuse_unless_positive(random.rate_per_min == 0 && value != default_value, key,
                           "cluster.random_stragglers.rate_per_min");
  }
  for (const auto& [key, value, default_value] :
       {std::tuple{"cluster.switch_overhead_pulls", cluster.switch_overhead_pulls,
                   defaults.cluster.switch_overhead_pulls},
        std::tuple{"cluster.worker_gflops", cluster.worker_gflops, defaults.cluster.worker_gflops},
        std::tuple{"cluster.compute_noise", cluster.compute_noise, defaults.cluster.compute_noise},
        std::tuple{"cluster.apply_gbps", cluster.apply_gbps, defaults.cluster.apply_gbps}}) {
    refuse_if(config.engine != "sim" && value != default_value, key, "engine", {"sim"},
              config.engine);
  }
}

// A per-worker list longer than the worker count would have its tail ignored: most likely a
// list written for another cluster (a run's config.toml lists them for its own worker count),
// so it is refused rather than cut, which could drop every slow worker of a mix.
void refuse_lists_longer_than_the_workers(const UserSettings& settings, const Config& config) {
  const ClusterConfig& cluster = config.cluster;
  for (const auto& [key, list] :
       {std::pair<std::string_view, const std::vector<double>*>{"cluster.speeds", &cluster.speeds},
        {"cluster.link_gbps", &cluster.link_gbps},
        {"cluster.link_latency_ms", &cluster.link_latency_ms}}) {
    if (list->size() <= static_cast<size_t>(cluster.workers)) continue;
    throw ConfigError(fmt::format(
        "{}: {} has {} entries for cluster.workers = {}: give one per worker, fewer (cycled "
        "over the workers), or none (the scenario's, spread over the workers)",
        settings.where_set(key).value_or(std::string(key)), key, list->size(), cluster.workers));
  }
}

// Step-time noise, not a spread of speeds: at 1 a step's 5th to 95th percentiles are 0.12x and
// 3.1x its mean, and far above, nearly every step is free and a rare one the whole run. An
// earlier hetps took more, so a config it wrote is not refused (resolve's caller says).
void refuse_noise_above_one(const UserSettings& settings, const Config& config) {
  const double noise = config.cluster.compute_noise;
  // Every scenario's noise is at most 1, so one above it is the user's.
  if (const auto where = settings.where_set("cluster.compute_noise"); where && noise > 1) {
    throw ConfigError(
        fmt::format("{}: cluster.compute_noise must be a number in [0, 1], got {}", *where, noise));
  }
}

// Sync-Switch's own budget S given so large that x·S BSP rounds outlast the run's budget: the
// switch would never come, and the run would be BSP throughout, as if x were 1.
void refuse_a_switch_after_the_budget(const GivenParams& given, const Config& config) {
  const auto budget = given.find("budget_steps");
  if (config.protocol.name != "sync_switch" || budget == given.end()) return;
  const ProtocolParams& params = config.protocol.params;
  const double fraction = std::get<double>(params.at("bsp_fraction"));
  const auto steps = static_cast<int64_t>(std::get<double>(params.at("budget_steps")));
  const protocol::RunShape shape = protocol::run_shape(config);
  const double run_steps = protocol::budget_in_bsp_steps(0, shape);
  const auto switches = [&](int64_t budget_steps) {
    return static_cast<double>(protocol::bsp_rounds_before_switch(fraction, budget_steps, shape)) <
           run_steps;
  };
  if (steps == 0 || fraction >= 1 || switches(steps)) return;
  // The largest S that switches, x·S < ceil(R) - 1/2, settled by the same test, as the division
  // alone can miss it by one.
  auto largest = static_cast<int64_t>(std::ceil((std::ceil(run_steps) - 0.5) / fraction)) - 1;
  while (largest > 0 && !switches(largest)) --largest;
  largest = std::max<int64_t>(largest, 0);
  while (switches(largest + 1)) ++largest;
  const std::string remedy =
      largest > 0 ? fmt::format("give budget_steps at most {} (0: the run's budget)", largest)
                  : "no budget_steps switches at this bsp_fraction: lower it, or raise "
                    "train.max_samples";
  throw ConfigError(fmt::format(
      "{}: protocol.budget_steps = {} puts Sync-Switch's switch after round({} x {}) = {} BSP "
      "rounds, but the run's budget is {:.10g} BSP rounds (train.max_samples = {} / ({} workers "
      "x batch {})): the switch would never come; {}",
      budget->second.where, steps, fraction, steps,
      protocol::bsp_rounds_before_switch(fraction, steps, shape), run_steps,
      config.train.max_samples, shape.workers, shape.batch_size, remedy));
}

}  // namespace

Config resolve(const UserSettings& settings, const ResolveOptions& options) {
  // A first pass only learns which scenario and protocol the user chose (and rejects bad
  // input early); the second applies the user's settings over that scenario's defaults.
  Config chosen;
  settings.apply_to(chosen);
  // The worker count the run will have: the scenario's unless the user set it.
  const Scenario& scenario = *find_scenario(chosen.cluster.scenario);
  Config shaped;
  apply_scenario(scenario, shaped.cluster, scenario.workers);
  settings.apply_to(shaped);

  Config config;
  apply_scenario(scenario, config.cluster, shaped.cluster.workers);
  if (const auto defaults = training_defaults(chosen.cluster.scenario, chosen.protocol.name,
                                              shaped.cluster.workers)) {
    apply_training_defaults(*defaults, config);
  }
  GivenParams given = settings.apply_to(config);
  // Those given for another protocol are that one's (a run's config.toml, which names its
  // protocol and holds every parameter of it, reused with --set protocol.name=...).
  std::erase_if(given, [&](const auto& param) {
    const std::string& given_for = param.second.for_protocol;
    return !given_for.empty() && given_for != config.protocol.name;
  });
  config.protocol.params =
      protocol_params(*protocol::find_protocol(config.protocol.name), given, options);
  const std::optional<AppliedPolicy> policy = apply_policy_file(config.protocol.params, given);
  if (config.run.name.empty()) config.run.name = config.protocol.name;
  check_consistency(config);
  refuse_lists_longer_than_the_workers(settings, config);
  if (!options.written_by_hetps) {
    refuse_noise_above_one(settings, config);
    refuse_idle_settings(settings, config, options);
    refuse_a_switch_after_the_budget(given, config);
  }
  if (policy && options.warn) {
    if (const auto warning = another_job_warning(*policy, config)) options.warn(*warning);
  }
  if (options.warn && config.train.lr_warmup_samples >= config.train.max_samples) {
    options.warn(fmt::format(
        "train.lr_warmup_samples = {} is not below the run's budget (train.max_samples = {}): "
        "the learning rate rises for the whole run and never reaches train.lr = {}",
        config.train.lr_warmup_samples, config.train.max_samples, config.train.lr));
  }
  return config;
}

void check_consistency(const Config& config) {
  try {
    cluster::refuse_a_trace_that_is_no_file(config.cluster.trace);
  } catch (const data::DataError& error) {
    throw ConfigError(error.what());
  }
  try {
    cluster::validate(config.cluster);
  } catch (const std::invalid_argument& error) {
    throw ConfigError(error.what());
  }
  if (config.train.lr_schedule == "step" && config.train.lr_step_samples == 0) {
    throw ConfigError(
        "train.lr_step_samples must be >= 1 with train.lr_schedule = \"step\", got 0");
  }
  if (config.run.stall_timeout_s < config.run.stall_warning_s) {
    throw ConfigError(fmt::format("run.stall_timeout_s must be >= run.stall_warning_s ({}), got {}",
                                  config.run.stall_warning_s, config.run.stall_timeout_s));
  }
}

}  // namespace hetps::config
