#include "cli/run_flags.h"

#include <fmt/format.h>

#include "cli/path_flags.h"
#include "cli/usage_error.h"

namespace hetps::cli {

void add_run_flags(CLI::App& command, RunFlags& flags) {
  command.add_option("--config", flags.config_file, "TOML file of settings")
      ->type_name("FILE")
      ->check(non_empty_path());
  command
      .add_option("--set", flags.sets,
                  "Override one setting, e.g. --set train.lr=0.1 --set cluster.speeds=[1,0.5] "
                  "(VALUE is TOML; a bare word is a string); repeatable, later wins")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  command
      .add_option("--out", flags.out,
                  "Output directory (train: runs/<run name>, compare: runs/compare)")
      ->type_name("DIR")
      ->check(non_empty_path());
  command.add_flag("--quiet", flags.quiet,
                   "Print no progress, only errors and the result (train: one line, compare: "
                   "the table)");
  command.add_flag("--force", flags.force,
                   "Replace the output directory if it exists and is an earlier output (or "
                   "empty)");
}

config::UserSettings user_settings(const RunFlags& flags) {
  config::UserSettings settings;
  if (!flags.config_file.empty()) settings.add_file(flags.config_file);
  for (const std::string& assignment : flags.sets) settings.add_set(assignment);
  return settings;
}

void refuse_setting(const config::UserSettings& settings, std::string_view key,
                    std::string_view why) {
  if (const std::optional<std::string> where = settings.where_set(key)) {
    throw UsageError(fmt::format("{}: {}", *where, why));
  }
}

}  // namespace hetps::cli
