#include "protocol/registry.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <variant>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "protocol/baselines.h"
#include "protocol/hybrids.h"

namespace hetps::protocol {

const ParamSpec* ProtocolInfo::find_param(const std::string& param) const {
  for (const auto& spec : params) {
    if (spec.name == param) return &spec;
  }
  return nullptr;
}

namespace {

std::vector<ProtocolInfo>& registered_protocols() {
  static std::vector<ProtocolInfo> protocols = {
      bsp_protocol(),         asp_protocol(),    ssp_protocol(),   local_sgd_protocol(),
      sync_switch_protocol(), petrel_protocol(), sapus_protocol(), ashl_protocol()};
  return protocols;
}

}  // namespace

const std::vector<ProtocolInfo>& all_protocols() { return registered_protocols(); }

ProtocolRegistration::ProtocolRegistration(ProtocolInfo info) : name_(info.name) {
  if (find_protocol(info.name) != nullptr) {
    throw std::invalid_argument("ProtocolRegistration: a protocol named '" + info.name +
                                "' exists already");
  }
  registered_protocols().push_back(std::move(info));
}

ProtocolRegistration::~ProtocolRegistration() {
  std::erase_if(registered_protocols(),
                [&](const ProtocolInfo& info) { return info.name == name_; });
}

const ProtocolInfo* find_protocol(const std::string& name) {
  for (const auto& info : all_protocols()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

std::string protocol_names() {
  std::vector<std::string> names;
  for (const auto& info : all_protocols()) names.push_back(info.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

RunShape run_shape(const config::Config& config) {
  return RunShape{config.cluster.workers, config.train.max_samples, config.data.batch_size,
                  config.train.momentum, config.seed};
}

bool ParamSpec::acts_with(const config::ProtocolParams& complete) const {
  if (!only_with) return true;
  const std::string& actual = std::get<std::string>(complete.at(only_with->param));
  return std::find(only_with->values.begin(), only_with->values.end(), actual) !=
         only_with->values.end();
}

std::optional<std::string> check_param(const ParamSpec& spec, const config::ParamValue& value) {
  if (spec.text) {
    if (std::holds_alternative<std::string>(value)) return std::nullopt;
    return std::string("expected text, e.g. a file path");
  }
  if (!spec.choices.empty()) {
    const auto* word = std::get_if<std::string>(&value);
    if (word == nullptr ||
        std::find(spec.choices.begin(), spec.choices.end(), *word) == spec.choices.end()) {
      return fmt::format("expected one of {}", fmt::join(spec.choices, ", "));
    }
    return std::nullopt;
  }
  const auto* number = std::get_if<double>(&value);
  if (number == nullptr) return std::string("expected a number");
  if (spec.integer && *number != std::floor(*number)) return std::string("expected an integer");
  if (!(*number >= spec.min && *number <= spec.max)) {
    return fmt::format("expected {} in [{}, {}]", spec.integer ? "an integer" : "a number",
                       spec.min, spec.max);
  }
  return std::nullopt;
}

namespace {

std::string describe(const config::ParamValue& value) {
  if (const auto* word = std::get_if<std::string>(&value)) return "'" + *word + "'";
  return fmt::format("{}", std::get<double>(value));
}

}  // namespace

config::ProtocolParams complete_params(const ProtocolInfo& info,
                                       const config::ProtocolParams& given) {
  config::ProtocolParams complete;
  for (const auto& [key, value] : given) {
    const ParamSpec* spec = info.find_param(key);
    if (spec == nullptr) {
      std::vector<std::string> known;
      for (const auto& p : info.params) known.push_back(p.name);
      throw std::invalid_argument(fmt::format(
          "protocol.{}: protocol '{}' has no parameter '{}' (its parameters: {})", key, info.name,
          key, known.empty() ? std::string("none") : fmt::format("{}", fmt::join(known, ", "))));
    }
    if (auto problem = check_param(*spec, value)) {
      throw std::invalid_argument(
          fmt::format("protocol.{}: {}, got {}", key, *problem, describe(value)));
    }
    complete[key] = value;
  }
  for (const auto& spec : info.params) complete.try_emplace(spec.name, spec.default_value);
  return complete;
}

}  // namespace hetps::protocol
