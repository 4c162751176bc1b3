// `hetps data fetch NAME [--dir DIR]`: downloads and converts a data set (see data/fetch.h).
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.h"
#include "cli/path_flags.h"
#include "cli/stop_signals.h"
#include "cli/usage_error.h"
#include "config/config.h"
#include "data/dataset.h"
#include "data/fetch.h"

namespace hetps::cli {
namespace {

struct FetchFlags {
  std::string name;
  std::string dir = config::DataConfig{}.dir;  // where `data.dir` looks by default
};

// An unknown name is bad input (exit status 2), not a failed download.
void fetch(const FetchFlags& flags) {
  const std::vector<std::string> names = data::fetchable_datasets();
  if (std::find(names.begin(), names.end(), flags.name) == names.end()) {
    throw UsageError(fmt::format("data fetch: unknown data set \"{}\"; known: {}", flags.name,
                                 fmt::join(names, ", ")));
  }
  std::error_code ignored;
  if (std::filesystem::exists(flags.dir, ignored) &&
      !std::filesystem::is_directory(flags.dir, ignored)) {
    throw UsageError(fmt::format("--dir {}: not a directory", flags.dir));
  }
  // Ctrl-C in the middle of a download or a conversion ends here, leaving nothing behind.
  const StopSignals signals;
  try {
    data::fetch_dataset(flags.name, flags.dir, std::cout, signals.requested());
  } catch (const data::FetchStopped& stop) {
    throw RunInterrupted(fmt::format(
        "data fetch {}: {}; nothing was written to {}, and the download was removed", flags.name,
        stop.what(), (std::filesystem::path(flags.dir) / flags.name).string()));
  }
}

}  // namespace

void add_data_command(CLI::App& app) {
  CLI::App* data_command = app.add_subcommand("data", "Manage data sets");
  data_command->require_subcommand(1);
  CLI::App* fetch_command =
      data_command->add_subcommand("fetch", "Download a data set into DIR/NAME");
  auto flags = std::make_shared<FetchFlags>();
  fetch_command->add_option("NAME", flags->name, "Data set, e.g. fashion-mnist")->required();
  fetch_command->add_option("--dir", flags->dir, "Data directory")
      ->type_name("DIR")
      ->check(non_empty_path())
      ->capture_default_str();
  fetch_command->callback([flags] { fetch(*flags); });
}

}  // namespace hetps::cli
