// Shorthands for a protocol's registration (registry.h): declaring its parameters and reading
// their values, which `complete_params` has already filled in and checked.
#pragma once

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "protocol/registry.h"

namespace hetps::protocol {

inline ParamSpec number_param(std::string name, double default_value, std::string help, double min,
                              double max, bool integer = false) {
  return ParamSpec{std::move(name), default_value, std::move(help), min, max, integer, {}};
}

inline ParamSpec word_param(std::string name, std::string default_value, std::string help,
                            std::vector<std::string> choices) {
  return ParamSpec{std::move(name), std::move(default_value), std::move(help), 0, 0,
                   false,           std::move(choices)};
}

inline ParamSpec text_param(std::string name, std::string help) {
  return ParamSpec{std::move(name), std::string(), std::move(help), 0, 0, false, {}, true};
}

// `spec`, acting only while the word parameter `param` has one of `values`.
inline ParamSpec only_with(ParamSpec spec, std::string param, std::vector<std::string> values) {
  spec.only_with = ParamSpec::Condition{std::move(param), std::move(values)};
  return spec;
}

inline double number(const config::ProtocolParams& params, const std::string& name) {
  return std::get<double>(params.at(name));
}

inline const std::string& word(const config::ProtocolParams& params, const std::string& name) {
  return std::get<std::string>(params.at(name));
}

}  // namespace hetps::protocol
