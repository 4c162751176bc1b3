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
  const bool bounded_below = min_ > -kInf;
  const bool bounded_above = max_ < kInf;
  if (bounded_below && bounded_above) {
    return fmt::format(" in {}{}, {}{}", min_open_ ? '(' : '[', min_, max_, max_open_ ? ')' : ']');
  }
  if (bounded_below) return fmt::format(" {} {}", min_open_ ? ">" : ">=", min_);
  if (bounded_above) return fmt::format(" {} {}", max_open_ ? "<" : "<=", max_);
  return "";
}

bool Choices::allows(const std::string& word) const {
  return words.empty() || std::find(words.begin(), words.end(), word) != words.end();
}

std::string Choices::describe() const {
  return words.empty() ? "a string" : fmt::format("one of: {}", fmt::join(words, ", "));
}

}  // namespace hetps::config
