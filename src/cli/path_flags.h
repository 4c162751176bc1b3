// Checks of the flags that name a file or directory.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace hetps::cli {

// An empty value (`--out ""`, say from an unset shell variable) is refused: left to stand, it
// reads as the flag not given, and the command would write to, or read from, its default place.
inline CLI::Validator non_empty_path() {
  return CLI::Validator(
      [](const std::string& value) {
        return value.empty() ? std::string("an empty path; expected a file or directory name")
                             : std::string();
      },
      "");
}

}  // namespace hetps::cli
