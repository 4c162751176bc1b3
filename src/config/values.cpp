#include "config/values.h"

#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "config/error.h"

namespace hetps::config {
namespace {

// Shortest form that reads back to the same double, always with a decimal point or exponent
// so TOML reads it back as a float.
std::string float_literal(double value) {
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";  // 'n': inf and nan
  return text;
}

// "a finite number > 0": said where inf would otherwise seem to pass, as it passes "> 0".
std::string numbers(const Range& range, std::string_view noun) {
  const bool say_finite = range.open_ended() && !range.allows_infinity();
  return fmt::format("{}{}{}", say_finite ? "finite " : "", noun, range.describe());
}

template <class Rule>
void read_word(std::string& out, const toml::node& node, const Rule& rule, const ValueSite& site) {
  const auto value = node.value_exact<std::string>();
  if (!value || !rule.allows(*value)) site.reject(rule.describe(), node);
  out = *value;
}

template <class Integer>
void read_integer(Integer& out, const toml::node& node, const Range& range, const ValueSite& site) {
  const auto value = node.value_exact<int64_t>();
  const bool fits = value && std::in_range<Integer>(*value);
  if (!fits || !range.contains(static_cast<double>(*value))) {
    site.reject("an integer" + range.describe(), node);
  }
  out = static_cast<Integer>(*value);
}

}  // namespace

std::string Source::where(const toml::node& node) const {
  if (!has_lines_ || !node.source().begin) return name_;
  return fmt::format("{}:{}", name_, node.source().begin.line);
}

void ValueSite::reject(std::string_view allowed, const toml::node& given) const {
  throw ConfigError(fmt::format("{}: {} must be {}, got {}", source.where(given), key, allowed,
                                toml_literal(given)));
}

std::string toml_literal(const toml::node& node) {
  if (const auto* value = node.as_floating_point()) return float_literal(value->get());
  if (const auto* array = node.as_array()) {
    std::string text = "[";
    for (const toml::node& element : *array) {
      text += (text.size() > 1 ? ", " : "") + toml_literal(element);
    }
    return text + "]";
  }
  if (const auto* table = node.as_table()) {
    std::string text = "{";
    for (const auto& [key, value] : *table) {
      text += fmt::format("{} {} = {}", text.size() > 1 ? "," : "", key.str(), toml_literal(value));
    }
    return text + " }";
  }
  // Double-quoted strings, as users write them, rather than toml++'s default 'literal' ones.
  constexpr auto kFlags =
      toml::toml_formatter::default_flags & ~toml::format_flags::allow_literal_strings;
  std::ostringstream out;
  out << toml::toml_formatter(node, kFlags);
  return out.str();
}

void read_into(double& out, const toml::node& node, const Range& range, const ValueSite& site) {
  const auto value = node.is_number() ? node.value<double>() : std::nullopt;
  if (!value || !range.contains(*value)) site.reject("a " + numbers(range, "number"), node);
  out = *value;
}

void read_into(int& out, const toml::node& node, const Range& range, const ValueSite& site) {
  read_integer(out, node, range, site);
}

void read_into(int64_t& out, const toml::node& node, const Range& range, const ValueSite& site) {
  read_integer(out, node, range, site);
}

void read_into(uint64_t& out, const toml::node& node, const Range& range, const ValueSite& site) {
  read_integer(out, node, range, site);
}

void read_into(bool& out, const toml::node& node, Unconstrained, const ValueSite& site) {
  const auto value = node.value_exact<bool>();
  if (!value) site.reject("true or false", node);
  out = *value;
}

void read_into(std::string& out, const toml::node& node, const Choices& choices,
               const ValueSite& site) {
  read_word(out, node, choices, site);
}

void read_into(std::string& out, const toml::node& node, const RegisteredProtocol& protocol,
               const ValueSite& site) {
  read_word(out, node, protocol, site);
}

void read_into(std::string& out, const toml::node& node, const DirectoryName& name,
               const ValueSite& site) {
  read_word(out, node, name, site);
}

// The per-worker lists, cycled over the workers: a bare number is every worker's, as a list of
// one is.
void read_into(std::vector<double>& out, const toml::node& node, const Range& range,
               const ValueSite& site) {
  const std::string allowed = "a " + numbers(range, "number") +
                              " (for every worker) or a non-empty list of them (cycled over the "
                              "workers)";
  const auto number = [&](const toml::node& element) {
    const auto value = element.is_number() ? element.value<double>() : std::nullopt;
    if (!value || !range.contains(*value)) site.reject(allowed, node);
    return *value;
  };
  if (!node.is_array()) {
    out = {number(node)};
    return;
  }
  const toml::array& array = *node.as_array();
  if (array.empty()) site.reject(allowed, node);
  std::vector<double> values;
  for (const toml::node& element : array) values.push_back(number(element));
  out = std::move(values);
}

toml::array toml_value(const std::vector<double>& values) {
  toml::array array;
  for (double value : values) array.push_back(value);
  return array;
}

}  // namespace hetps::config
