// Runs the `hetps` binary under test (HETPS_BINARY) and captures what it says, for tests that
// check exit statuses and messages; plus a scratch directory per test for its outputs.
#pragma once

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/scratch_dir.h"

namespace hetps::cli::testing {

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

// Runs hetps in `working_dir`, or in the test's own working directory when it is empty.
inline Outcome run_hetps(const std::vector<std::string>& args,
                         const std::filesystem::path& working_dir = {}) {
  std::string command = working_dir.empty() ? "" : "cd " + shell_quote(working_dir) + " && ";
  command += shell_quote(HETPS_BINARY);
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
