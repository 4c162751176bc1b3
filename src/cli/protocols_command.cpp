// `hetps protocols`: every protocol with its parameters (`protocol.<name>` keys), their
// defaults, allowed values and help.
#include <algorithm>
#include <variant>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.h"
#include "protocol/registry.h"

namespace hetps::cli {
namespace {

std::string allowed_values(const protocol::ParamSpec& spec) {
  if (spec.text) return "text";
  if (!spec.choices.empty()) return fmt::format("one of {}", fmt::join(spec.choices, ", "));
  return fmt::format("{} in [{}, {}]", spec.integer ? "integer" : "number", spec.min, spec.max);
}

// Text is quoted, so that an empty default reads as one: `protocol.policy_file = ""`.
std::string default_value(const protocol::ParamSpec& spec) {
  if (spec.text) return fmt::format("\"{}\"", std::get<std::string>(spec.default_value));
  return std::visit([](const auto& v) { return fmt::format("{}", v); }, spec.default_value);
}

void list_protocols() {
  size_t width = 0;
  for (const auto& info : protocol::all_protocols()) width = std::max(width, info.name.size());
  for (const protocol::ProtocolInfo& info : protocol::all_protocols()) {
    fmt::print("{:<{}}  {}\n", info.name, width, info.summary);
    for (const protocol::ParamSpec& spec : info.params) {
      fmt::print("    protocol.{} = {}  ({}) {}\n", spec.name, default_value(spec),
                 allowed_values(spec), spec.help);
    }
  }
}

}  // namespace

void add_protocols_command(CLI::App& app) {
  app.add_subcommand("protocols", "List the protocols and their parameters")
      ->callback(list_protocols);
}

}  // namespace hetps::cli
