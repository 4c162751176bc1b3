// Checks of the flags that take a number.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

namespace hetps::cli {

// A transform for a number flag (`->transform(number_within(...))`): the value must read, to its
// last character, as a finite number from `lowest` to `highest`, and a whole one when `whole`; a
// refusal says what was expected. A whole number is handed on in plain decimal, so that the
// option's integer conversion reads the number checked here ("010" is 10, not octal 8; "1e3" is
// 1000). CLI::Range, which this replaces, called a word "not in range", printed its bounds as
// 0.000000, and let NaN through.
inline CLI::Validator number_within(double lowest, double highest, bool whole) {
  return CLI::Validator(
      [=](std::string& value) {
        const char* begin = value.c_str();
        char* end = nullptr;
        const double number = std::strtod(begin, &end);
        const bool read = end != begin && *end == '\0' && std::isfinite(number);
        if (!read || number < lowest || number > highest ||
            (whole && number != std::floor(number))) {
          return fmt::format("expected {} from {} to {}, got \"{}\"",
                             whole ? "a whole number" : "a number", lowest, highest, value);
        }
        if (whole) value = fmt::format("{}", static_cast<int64_t>(number));
        return std::string();
      },
      fmt::format("{} in [{}, {}]", whole ? "whole number" : "number", lowest, highest));
}

}  // namespace hetps::cli
