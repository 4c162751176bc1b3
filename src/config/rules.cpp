#include "config/rules.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "protocol/registry.h"

namespace hetps::config {

bool Range::contains(double value) const {
  if (!std::isfinite(value)) return infinity_allowed_ && value == kInf;
  const bool above_min = min_open_ ? value > min_ : value >= min_;
  const bool below_max = max_open_ ? value < max_ : value <= max_;
  return above_min && below_max;
}

std::string Range::describe() const {
  const std::string infinity = infinity_allowed_ ? ", or inf" : "";
  if (max_ == kInf) return fmt::format(" {} {}{}", min_open_ ? ">" : ">=", min_, infinity);
  return fmt::format(" in {}{}, {}{}{}", min_open_ ? '(' : '[', min_, max_, max_open_ ? ')' : ']',
                     infinity);
}

bool Choices::allows(const std::string& word) const {
  return words.empty() || std::find(words.begin(), words.end(), word) != words.end();
}

std::string Choices::describe() const {
  return words.empty() ? "a string" : fmt::format("one of: {}", fmt::join(words, ", "));
}

bool DirectoryName::allows(const std::string& word) const {
  return !word.empty() && word != "." && word != ".." && word.find('/') == std::string::npos;
}

std::string DirectoryName::describe() const {
  return "a string usable as a directory name: non-empty, without '/', not \".\" or \"..\"";
}

bool RegisteredProtocol::allows(const std::string& word) const {
  return protocol::find_protocol(word) != nullptr;
}

std::string RegisteredProtocol::describe() const {
  return Choices::named(protocol::all_protocols()).describe();
}

}  // namespace hetps::config
