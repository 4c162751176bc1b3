#include "config/rules.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace hetps::config {

bool Range::contains(double value) const {
  const bool above_min = min_open_ ? value > min_ : value >= min_;
  const bool below_max = max_open_ ? value < max_ : value <= max_;
  return above_min && below_max;
}

std::string Range::describe() const {
  if (max_ == kInf) return fmt::format(" {} {}", min_open_ ? ">" : ">=", min_);
  return fmt::format(" in {}{}, {}{}", min_open_ ? '(' : '[', min_, max_, max_open_ ? ')' : ']');
}

bool Choices::allows(const std::string& word) const {
  return words.empty() || std::find(words.begin(), words.end(), word) != words.end();
}

std::string Choices::describe() const {
  return words.empty() ? "a string" : fmt::format("one of: {}", fmt::join(words, ", "));
}

}  // namespace hetps::config
