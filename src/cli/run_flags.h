// The flags `train` and `compare` share, and the user settings they make.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "config/settings.h"

namespace hetps::cli {

struct RunFlags {
  std::string config_file;        // empty: none
  std::vector<std::string> sets;  // "KEY=VALUE", in the order given
  std::string out;                // empty: the command's default
  bool quiet = false;
  bool force = false;
  std::string resume;  // the run (train) or comparison (compare) to continue; empty: a new one
};

void add_run_flags(CLI::App& command, RunFlags& flags);

// The config file (if any), then each --set in order.
config::UserSettings user_settings(const RunFlags& flags);

// Throws UsageError naming where `key` was set in `settings`, if it was: a setting the command
// makes itself (`why` says how), which would otherwise be overridden without a word.
void refuse_setting(const config::UserSettings& settings, std::string_view key,
                    std::string_view why);

}  // namespace hetps::cli
