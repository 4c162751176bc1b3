#include "config/toml_writer.h"

#include <cmath>

#include <fmt/format.h>

#include "config/schema.h"

namespace hetps::config {
namespace {

// Integral numbers as TOML integers ("staleness = 8"); they read back as the same double.
void insert_param(toml::table& protocol, const std::string& name, const ParamValue& value) {
  if (const auto* word = std::get_if<std::string>(&value)) {
    protocol.insert_or_assign(name, *word);
    return;
  }
  const double number = std::get<double>(value);
  constexpr double kExactIntegers = 9007199254740992.0;  // 2^53
  if (std::trunc(number) == number && std::abs(number) <= kExactIntegers) {
    protocol.insert_or_assign(name, static_cast<int64_t>(number));
  } else {
    protocol.insert_or_assign(name, number);
  }
}

// `run.name` defaults to `protocol.name` and is written only when it differs: a config.toml
// that pinned it would name a run after the old protocol when loaded with another one
// (`--config old/config.toml --set protocol.name=asp` would still be named "bsp").
bool is_written(const Config& config, const std::string& key) {
  return key != "run.name" || config.run.name != config.protocol.name;
}

}  // namespace

toml::table to_toml(const Config& config) {
  toml::table root;
  for (const auto& field : config_schema().fields()) {
    if (is_written(config, field.key)) field.write(config, root);
  }
  toml::table& protocol = *root["protocol"].as_table();
  for (const auto& [name, value] : config.protocol.params) insert_param(protocol, name, value);
  return root;
}

std::vector<std::pair<std::string, std::string>> dotted_values(const Config& config) {
  const toml::table root = to_toml(config);
  std::vector<std::pair<std::string, std::string>> values;
  const auto add = [&](const std::string& key) {
    values.emplace_back(key, toml_literal(*toml::at_path(root, key).node()));
  };
  for (const auto& field : config_schema().fields()) {
    if (!is_written(config, field.key)) continue;
    add(field.key);
    if (field.key == "protocol.name") {
      for (const auto& [name, value] : config.protocol.params) add("protocol." + name);
    }
  }
  return values;
}

std::string to_toml_text(const Config& config) {
  std::string text;
  std::string current_table;
  // Keys below a table's first level are written dotted ("random_stragglers.rate_per_min =")
  // so a table is never opened twice.
  for (const auto& [key, literal] : dotted_values(config)) {
    const size_t dot = key.find('.');
    const std::string table = dot == std::string::npos ? "" : key.substr(0, dot);
    if (table != current_table) {
      text += fmt::format("\n[{}]\n", table);
      current_table = table;
    }
    text += fmt::format("{} = {}\n", key.substr(table.empty() ? 0 : dot + 1), literal);
  }
  return text;
}

}  // namespace hetps::config
