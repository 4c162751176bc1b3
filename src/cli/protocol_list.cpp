#include "cli/protocol_list.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/usage_error.h"
#include "protocol/registry.h"

namespace hetps::cli {
namespace {

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (size_t end = text.find(separator);; end = text.find(separator)) {
    parts.push_back(text.substr(0, end));
    if (end == std::string_view::npos) return parts;
    text.remove_prefix(end + 1);
  }
}

std::string parameter_names(const protocol::ProtocolInfo& info) {
  if (info.params.empty()) return "none";
  std::vector<std::string> names;
  for (const auto& spec : info.params) names.push_back(spec.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

ProtocolEntry parse_entry(std::string_view text) {
  const std::vector<std::string_view> parts = split(text, ':');
  ProtocolEntry entry{std::string(text), std::string(parts.front()), {}};
  const protocol::ProtocolInfo* info = protocol::find_protocol(entry.protocol);
  if (!info) {
    throw FlagError(fmt::format("--protocols entry \"{}\": unknown protocol \"{}\"; known: {}",
                                text, entry.protocol, protocol::protocol_names()));
  }
  for (size_t i = 1; i < parts.size(); ++i) {
    const size_t equals = parts[i].find('=');
    if (equals == std::string_view::npos) {
      throw FlagError(
          fmt::format("--protocols entry \"{}\": expected PARAMETER=VALUE after ':', got \"{}\"",
                      text, parts[i]));
    }
    std::string name(parts[i].substr(0, equals));
    if (!info->find_param(name)) {
      throw FlagError(
          fmt::format("--protocols entry \"{}\": {} has no parameter \"{}\"; its parameters: {}",
                      text, entry.protocol, name, parameter_names(*info)));
    }
    const bool given_before = std::any_of(entry.params.begin(), entry.params.end(),
                                          [&](const auto& param) { return param.first == name; });
    if (given_before) {
      throw FlagError(
          fmt::format("--protocols entry \"{}\": parameter \"{}\" is given twice", text, name));
    }
    entry.params.emplace_back(std::move(name), std::string(parts[i].substr(equals + 1)));
  }
  return entry;
}

}  // namespace

std::string ProtocolEntry::origin() const { return fmt::format("--protocols entry \"{}\"", text); }

void ProtocolEntry::add_to(config::UserSettings& settings) const {
  const std::string origin = this->origin();
  settings.add_string("protocol.name", protocol, origin);
  for (const auto& [name, value] : params) settings.add("protocol." + name, value, origin);
  // A run name is a directory's name: a path among the entry's values (e.g. an agent file)
  // keeps its text there, not its slashes.
  std::string run_name = text;
  std::replace(run_name.begin(), run_name.end(), '/', '_');
  settings.add_string("run.name", run_name, origin);
}

std::vector<ProtocolEntry> parse_protocol_list(std::string_view list) {
  std::vector<ProtocolEntry> entries;
  for (std::string_view text : split(list, ',')) {
    if (text.empty()) {
      throw FlagError(fmt::format(
          "--protocols \"{}\": empty entry; expected a comma-separated list such as bsp,asp",
          list));
    }
    const bool repeated =
        std::any_of(entries.begin(), entries.end(),
                    [&](const ProtocolEntry& entry) { return entry.text == text; });
    if (repeated) {
      throw FlagError(fmt::format("--protocols \"{}\": entry \"{}\" is listed twice", list, text));
    }
    entries.push_back(parse_entry(text));
  }
  return entries;
}

}  // namespace hetps::cli
