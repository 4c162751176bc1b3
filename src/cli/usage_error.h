// Bad input that is not a config setting: a malformed --protocols list, an output directory
// that exists without --force or cannot be created, a missing or corrupt data file. Exits with
// status 2, like every bad input.
#pragma once

#include <stdexcept>

namespace hetps::cli {

class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A flag given wrong, as hetps reads it after the command line parsed (a --protocols entry, a
// --timeline-window, flags that do not go together): printed, as the parser's own errors are,
// with the line pointing at the command's --help.
class FlagError : public UsageError {
 public:
  using UsageError::UsageError;
};

}  // namespace hetps::cli

namespace hetps::cli {

// A run stopped by SIGINT or SIGTERM after saving a checkpoint: the message says how to go on.
// Exits with status 130, as an interrupted program does.
class RunInterrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace hetps::cli
