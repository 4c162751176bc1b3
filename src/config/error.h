// The error every configuration problem raises. Its message says where the value came from
// (the file and line, or the `--set` flag), the key, the value given and what is allowed:
//   exp.toml:4: train.momentum must be a number in [0, 1), got 1.5
#pragma once

#include <stdexcept>

namespace hetps::config {

// Derives from std::invalid_argument so callers that map bad input to one exit code catch it
// together with the engine's own std::invalid_argument.
class ConfigError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace hetps::config
