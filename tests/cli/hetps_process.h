// Runs the `hetps` binary under test (HETPS_BINARY) and captures what it says, for tests that
// check exit statuses and messages, or stops it with SIGINT once a run holds checkpoints; plus
// a scratch directory per test for its outputs.
#pragma once

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/scratch_dir.h"

namespace hetps::cli::testing {

// hetps's exit status when an injected server-shard crash ended the run (cli/main.h).
constexpr int kShardCrashed = 3;

struct Outcome {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Single-quoted for the shell, so arguments reach hetps exactly as written here.
inline std::string shell_quote(const std::string& arg) {
  std::string quoted = "'";
  for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// Runs hetps (or `binary`, a link to it under another name) in `working_dir`, or in the test's
// own working directory when it is empty.
inline Outcome run_hetps(const std::vector<std::string>& args,
                         const std::filesystem::path& working_dir = {},
                         const std::filesystem::path& binary = HETPS_BINARY) {
  std::string command = working_dir.empty() ? "" : "cd " + shell_quote(working_dir) + " && ";
  command += shell_quote(binary.string());
  for (const std::string& arg : args) command += " " + shell_quote(arg);
  command += " 2>&1";
  Outcome outcome;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return outcome;
  std::array<char, 4096> buffer;
  for (size_t n; (n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0;) {
    outcome.output.append(buffer.data(), n);
  }
  const int status = pclose(pipe);
  outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return outcome;
}

// The checkpoints the run directory `run` holds (none while it has no checkpoints directory).
inline size_t checkpoints_in(const std::filesystem::path& run) {
  std::error_code none_yet;
  size_t count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(run / "checkpoints", none_yet)) {
    count += entry.path().extension() == ".ckpt" ? 1 : 0;
  }
  return count;
}

// Starts hetps on `args` with its output into `output`, waits until `ready()` holds, calls
// `while_running` (if any), then sends SIGINT; returns the exit status (-2: it ended before).
inline int interrupt_when(const std::vector<std::string>& args, const std::function<bool()>& ready,
                          const std::filesystem::path& output,
                          const std::function<void()>& while_running = {}) {
  std::vector<std::string> argv_strings = {HETPS_BINARY};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& arg : argv_strings) argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  // hetps keeps a SIGINT it was started with ignored: a test binary run as a shell script's
  // background job would pass that on, and the SIGINT below would then never stop it.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  posix_spawnattr_setsigdefault(&attributes, &stop_signals);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, HETPS_BINARY, &actions, &attributes, argv.data(), environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  while (!ready()) {
    if (waitpid(pid, &status, WNOHANG) == pid) return -2;  // it ended before
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (while_running) while_running();
  kill(pid, SIGINT);
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -3;
}

// interrupt_when the run directory `run` holds `checkpoints` checkpoints. Waiting for a
// checkpoint, not for a time, puts the signal inside the run wherever the machine's speed puts
// the checkpoint.
inline int interrupt_after_checkpoints(const std::vector<std::string>& args,
                                       const std::filesystem::path& run, size_t checkpoints,
                                       const std::filesystem::path& output,
                                       const std::function<void()>& while_running = {}) {
  return interrupt_when(
      args, [&] { return checkpoints_in(run) >= checkpoints; }, output, while_running);
}

using ::hetps::testing::ScratchDir;

// Settings for a run of about a second: synthetic data, two workers, a small budget.
inline std::vector<std::string> tiny_run(std::vector<std::string> args) {
  for (const char* set :
       {"data.name=synthetic", "data.synthetic_train=512", "data.synthetic_test=128",
        "train.max_samples=2000", "cluster.workers=2"}) {
    args.push_back("--set");
    args.push_back(set);
  }
  return args;
}

// The whole of a file the run wrote; empty when it is missing.
inline std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A run's summary.json without its wall-clock seconds: what two runs of the same config share.
inline nlohmann::json summary_without_wall_clock(const std::filesystem::path& dir) {
  nlohmann::json summary = nlohmann::json::parse(read_file(dir / "summary.json"));
  summary.erase("wall_seconds");
  return summary;
}

}  // namespace hetps::cli::testing
