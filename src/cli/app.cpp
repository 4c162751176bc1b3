#include <exception>
#include <iostream>
#include <stdexcept>
#include <string>

#include <fmt/ostream.h>
#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/main.h"
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

}  // namespace

int main_entry(int argc, char** argv) {
  model::keep_freed_memory_for_reuse();
  // Petrel is built in the libtorch-free protocol part, which cannot read a learned agent's
  // network (`protocol.agent_file`): it is told here how, before any command runs.
  protocol::install_learned_agent_loader(model::load_learned_agent_file);
  CLI::App app(
      "hetps: synchronization protocols for parameter servers on heterogeneous "
      "clusters",
      "hetps");
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);
  add_train_command(app);
  add_compare_command(app);
  add_report_command(app);
  add_tune_command(app);
  add_data_command(app);
  add_protocols_command(app);
  try {
    app.parse(argc, argv);
    return 0;
  } catch (const CLI::Success& done) {  // --help, --version
    return app.exit(done);
  } catch (const CLI::ParseError& error) {
    fmt::print(std::cerr, "hetps: {}\nRun 'hetps --help' for the sub-commands and flags.\n",
               error.what());
    return kBadInput;
  } catch (const RunInterrupted& stop) {
    fmt::print(std::cerr, "hetps: {}\n", stop.what());
    return kInterrupted;
  } catch (const engine::ShardCrashed& crash) {
    fmt::print(std::cerr, "hetps: {}\n", crash.what());
    return kShardCrashed;
  } catch (const std::invalid_argument& error) {  // config, flags, the engine refusing a config
    fmt::print(std::cerr, "hetps: {}\n", error.what());
    return kBadInput;
  } catch (const std::exception& error) {
    fmt::print(std::cerr, "hetps: error: {}\n", error.what());
    return kRunFailed;
  }
}

}  // namespace hetps::cli
