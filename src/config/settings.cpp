#include "config/settings.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <system_error>

#include "config/error.h"
#include "config/schema.h"

namespace hetps::config {
namespace {

// A protocol parameter is a number or a word. No parameter is a boolean, and true/false taken
// as 1/0 would set a number silently (staleness = true: 1) or misname a switch's on/off.
ParamValue param_value(const toml::node& node, const ValueSite& site) {
  if (const auto word = node.value_exact<std::string>()) return *word;
  if (node.is_number()) return *node.value<double>();
  if (node.is_boolean()) site.reject("a number or a word (a switch takes \"on\" or \"off\")", node);
  site.reject("a number or a word", node);
}

// VALUE as TOML when it is a valid TOML value, else as a string: `--set protocol.name=ssp`.
// A value that opens a list, a table or a quoted string was meant as TOML: taken as a word it
// would only meet a puzzling type error ("[1," is not a list), so its own error is given.
toml::table value_table(std::string_view value, std::string_view origin) {
  try {
    toml::table parsed = toml::parse(fmt::format("value = {}", value));
    if (parsed.size() == 1) return parsed;
  } catch (const toml::parse_error& error) {
    if (!value.empty() && std::string_view("[{\"'").find(value.front()) != std::string_view::npos) {
      throw ConfigError(fmt::format(
          "{}: the value is not valid TOML ({}); write a list as [1, 0.5], a table as {{ a = 1 "
          "}}, a string as \"text\" or as a bare word",
          origin, error.description()));
    }
    // Digits alone that TOML refuses are an integer past its range, not a word.
    const std::string_view digits =
        value.starts_with('-') || value.starts_with('+') ? value.substr(1) : value;
    if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos) {
      throw ConfigError(
          fmt::format("{}: {} is out of the range of an integer (-9223372036854775808 to "
                      "9223372036854775807)",
                      origin, value));
    }
  }
  toml::table table;
  table.insert("value", std::string(value));
  return table;
}

}  // namespace

void UserSettings::add_file(const std::filesystem::path& path) {
  const auto unreadable = [&](std::string_view why) {
    return ConfigError(fmt::format("cannot read config file {}: {}", path.string(), why));
  };
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) throw unreadable("it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw unreadable(std::strerror(errno));
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw unreadable("read error");
  add_text(text, path.string());
}

void UserSettings::add_text(std::string_view text, const std::string& file) {
  toml::table table;
  try {
    table = toml::parse(text, file);
  } catch (const toml::parse_error& error) {
    throw ConfigError(fmt::format("{}:{}:{}: invalid TOML: {}", file, error.source().begin.line,
                                  error.source().begin.column, error.description()));
  }
  layers_.push_back(std::make_shared<const Layer>(Layer{std::move(table), Source::file(file)}));
}

void UserSettings::add_set(std::string_view assignment) {
  const size_t equals = assignment.find('=');
  if (equals == std::string_view::npos) {
    throw ConfigError(
        fmt::format("--set {}: expected KEY=VALUE, e.g. --set train.lr=0.1", assignment));
  }
  add(assignment.substr(0, equals), assignment.substr(equals + 1),
      fmt::format("--set {}", assignment));
}

void UserSettings::add(std::string_view key, std::string_view value, std::string origin) {
  toml::table table = value_table(value, origin);
  add_layer(key, std::move(table), std::move(origin));
}

void UserSettings::add_string(std::string_view key, std::string value, std::string origin) {
  toml::table table;
  table.insert("value", std::move(value));
  add_layer(key, std::move(table), std::move(origin));
}

void UserSettings::add_layer(std::string_view key, toml::table value, std::string origin) {
  toml::table root;
  toml::table* table = &root;
  std::string_view rest = key;
  for (size_t dot = rest.find('.');; dot = rest.find('.')) {
    const std::string_view part = rest.substr(0, dot);
    if (part.empty()) {
      throw ConfigError(fmt::format(
          "{}: malformed key \"{}\": expected names joined by dots, like train.lr", origin, key));
    }
    if (dot == std::string_view::npos) {
      value.get("value")->visit(
          [&](auto& node) { table->insert_or_assign(part, std::move(node)); });
      break;
    }
    table = table->emplace<toml::table>(part).first->second.as_table();
    rest.remove_prefix(dot + 1);
  }
  layers_.push_back(
      std::make_shared<const Layer>(Layer{std::move(root), Source::flag(std::move(origin))}));
}

std::optional<std::string> UserSettings::where_set(std::string_view key) const {
  for (auto layer = layers_.rbegin(); layer != layers_.rend(); ++layer) {
    if (const toml::node* node = toml::at_path((*layer)->table, key).node()) {
      return (*layer)->source.where(*node);
    }
  }
  return std::nullopt;
}

GivenParams UserSettings::apply_to(Config& config) const {
  GivenParams params;
  for (const auto& layer : layers_) {
    const Source& source = layer->source;
    std::vector<std::string> claimed;
    const ClaimKey claim_protocol_param = [&](const std::string& key, const toml::node& node) {
      constexpr std::string_view kPrefix = "protocol.";
      if (!key.starts_with(kPrefix)) return false;
      const ValueSite site{source, key};
      const std::string name = key.substr(kPrefix.size());
      params[name] = GivenParam{param_value(node, site), source.where(node), ""};
      claimed.push_back(name);
      return true;
    };
    read_table(layer->table, config_schema(), config, TableSite{source, "", claim_protocol_param});
    // A file's parameters are for the protocol the file names, if it names one (a --set layer
    // holds one key: its parameter is for whichever protocol the run is).
    if (!toml::at_path(layer->table, "protocol.name").node()) continue;
    for (const std::string& name : claimed) params[name].for_protocol = config.protocol.name;
  }
  return params;
}

}  // namespace hetps::config
