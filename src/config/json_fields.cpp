#include "config/json_fields.h"

#include <fmt/format.h>

#include "config/error.h"

namespace hetps::config {

const nlohmann::json& JsonFields::field(const nlohmann::json& object, const std::string& key,
                                        const std::string& path) const {
  const auto found = object.find(key);
  if (found == object.end()) throw ConfigError(fmt::format("{}: {} is missing", file_, path));
  return *found;
}

double JsonFields::number(const nlohmann::json& object, const std::string& key,
                          const std::string& path, double min, double max, bool open_min) const {
  const nlohmann::json& value = field(object, key, path);
  const bool in_range = value.is_number() &&
                        (open_min ? value.get<double>() > min : value.get<double>() >= min) &&
                        value.get<double>() <= max;
  if (!in_range) {
    reject(path, fmt::format("a number in {}{}, {}]", open_min ? "(" : "[", min, max), value);
  }
  return value.get<double>();
}

std::string JsonFields::text(const nlohmann::json& object, const std::string& key,
                             const std::string& path) const {
  const nlohmann::json& value = field(object, key, path);
  if (!value.is_string()) reject(path, "a string", value);
  return value.get<std::string>();
}

const nlohmann::json& JsonFields::list(const nlohmann::json& object, const std::string& key,
                                       const std::string& path, const std::string& what) const {
  const nlohmann::json& value = field(object, key, path);
  if (!value.is_array()) reject(path, what, value);
  return value;
}

void JsonFields::check_object(const nlohmann::json& value, const std::string& path,
                              const std::string& what) const {
  if (!value.is_object()) reject(path, what, value);
}

void JsonFields::reject(const std::string& path, const std::string& allowed,
                        const nlohmann::json& given) const {
  throw ConfigError(fmt::format("{}: {} must be {}, got {}", file_, path, allowed, given.dump()));
}

}  // namespace hetps::config
