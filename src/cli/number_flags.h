// Checks of the flags that take a number.
#pragma once

#include <cmath>
#include <cstdlib>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

namespace hetps::cli {

// The flag's value must read, whole, as a finite number from `lowest` to `highest` (a whole
// number when `whole`); a refusal says what was expected. CLI::Range, which this replaces, calls
// a word "not in range", prints its bounds as 0.000000, and lets NaN through.
inline CLI::Validator number_within(double lowest, double highest, bool whole) {
  return CLI::Validator(
      [=](const std::string& value) {
        const char* begin = value.c_str();
        char* end = nullptr;
        const double number = std::strtod(begin, &end);
        const bool read = end != begin && *end == '\0' && std::isfinite(number);
        if (read && number >= lowest && number <= highest &&
            (!whole || number == std::floor(number))) {
          return std::string();
        }
        return fmt::format("expected {} from {} to {}, got {}",
                           whole ? "a whole number" : "a number", lowest, highest, value);
      },
      "");
}

}  // namespace hetps::cli
