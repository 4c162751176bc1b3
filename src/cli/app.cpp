#include <exception>
#include <iostream>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/main.h"
#include "cli/program_name.h"
#include "cli/usage_error.h"
#include "engine/shard_failures.h"
#include "model/heap_tuning.h"
#include "model/learned_agent.h"

namespace hetps::cli {
namespace {

constexpr const char* kVersion = "hetps " HETPS_VERSION;  // project(VERSION) in CMakeLists.txt

constexpr int kRunFailed = 1;
constexpr int kBadInput = 2;
// An injected server-shard crash (`cluster.shard_failures`) ended the run: resumable with
// `--resume` from its last checkpoint, if it took one (the message says which).
constexpr int kShardCrashed = 3;
constexpr int kInterrupted = 130;  // 128 + SIGINT, what shells report for Ctrl-C

// CLI11 reads an unknown first word as a missing sub-command ("A subcommand is required"):
// it is named instead, with the commands there are.
void refuse_unknown_command(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return;
  std::vector<std::string> names;
  for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (command->check_name(argv[1])) return;
    names.push_back(command->get_name());
  }
  throw UsageError(fmt::format("unknown command \"{}\"; the commands are {} ({} --help)", argv[1],
                               fmt::join(names, ", "), program_name()));
}

// "hetps data fetch --help" for a mistake in `hetps data fetch ...`: the help of the command
// the line names, which lists its flags, rather than the top level's.
std::string help_for(const CLI::App& app, int argc, char** argv) {
  std::string command = program_name();
  const CLI::App* at = &app;
  for (int i = 1; i < argc; ++i) {
    const auto subcommands =
        at->get_subcommands([&](const CLI::App* sub) { return sub->check_name(argv[i]); });
    if (subcommands.empty()) break;
    at = subcommands.front();
    command += " " + at->get_name();
  }
  return command + " --help";
}

}  // namespace

int main_entry(int argc, char** argv) {
  set_program_name(argc > 0 ? argv[0] : nullptr);
  model::keep_freed_memory_for_reuse();
  // Petrel is built in the libtorch-free protocol part, which cannot read a learned agent's
  // network (`protocol.agent_file`): it is told here how, before any command runs.
  protocol::install_learned_agent_loader(model::load_learned_agent_file);
  CLI::App app(
      "hetps: synchronization protocols for parameter servers on heterogeneous "
      "clusters",
      program_name());
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);
  add_train_command(app);
  add_compare_command(app);
  add_report_command(app);
  add_tune_command(app);
  add_data_command(app);
  add_protocols_command(app);
  const auto bad_flag = [&](const std::exception& error) {
    fmt::print(std::cerr, "hetps: {}\nRun '{}' for the commands and flags.\n", error.what(),
               help_for(app, argc, argv));
    return kBadInput;
  };
  try {
    refuse_unknown_command(app, argc, argv);
    app.parse(argc, argv);
    return 0;
  } catch (const CLI::Success& done) {  // --help, --version
    return app.exit(done);
  } catch (const CLI::ParseError& error) {
    return bad_flag(error);
  } catch (const FlagError& error) {
    return bad_flag(error);
  } catch (const RunInterrupted& stop) {
    fmt::print(std::cerr, "hetps: {}\n", stop.what());
    return kInterrupted;
  } catch (const engine::ShardCrashed& crash) {
    fmt::print(std::cerr, "hetps: {}\n", crash.what());
    return kShardCrashed;
  } catch (const std::invalid_argument& error) {  // config, flags, the engine refusing a config
    fmt::print(std::cerr, "hetps: {}\n", error.what());
    return kBadInput;
  } catch (const std::bad_alloc&) {
    fmt::print(std::cerr,
               "hetps: error: out of memory: the run asked for more memory than this machine "
               "gives it (the data set's size, data.batch_size, the model and the worker count "
               "each add to it)\n");
    return kRunFailed;
  } catch (const std::exception& error) {
    fmt::print(std::cerr, "hetps: error: {}\n", error.what());
    return kRunFailed;
  }
}

}  // namespace hetps::cli
