#include "report/gnuplot.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

extern char** environ;

namespace hetps::report {
namespace {

std::string system_error(std::string_view what, int error) {
  return fmt::format("{}: {}", what, std::strerror(error));
}

// The file actions of the child: in `directory`, no stdin, stdout discarded, stderr to `pipe`.
class ChildFiles {
 public:
  ChildFiles(const std::filesystem::path& directory, int stderr_pipe) {
    posix_spawn_file_actions_init(&actions_);
    // addchdir_np (glibc 2.29): the child runs in the report directory without the parent
    // changing its own, which other threads share.
    const int error = first_error({
        posix_spawn_file_actions_addchdir_np(&actions_, directory.c_str()),
        posix_spawn_file_actions_addopen(&actions_, 0, "/dev/null", O_RDONLY, 0),
        posix_spawn_file_actions_addopen(&actions_, 1, "/dev/null", O_WRONLY, 0),
        posix_spawn_file_actions_adddup2(&actions_, stderr_pipe, 2),
    });
    if (error != 0) {
      posix_spawn_file_actions_destroy(&actions_);
      throw GnuplotError(system_error("cannot prepare gnuplot's files", error));
    }
  }
  ~ChildFiles() { posix_spawn_file_actions_destroy(&actions_); }
  ChildFiles(const ChildFiles&) = delete;
  ChildFiles& operator=(const ChildFiles&) = delete;

  const posix_spawn_file_actions_t* get() const { return &actions_; }

 private:
  static int first_error(std::initializer_list<int> results) {
    for (int result : results) {
      if (result != 0) return result;
    }
    return 0;
  }

  posix_spawn_file_actions_t actions_;
};

// A file descriptor closed when it goes out of scope, unless closed before.
class OwnedFd {
 public:
  explicit OwnedFd(int fd) : fd_(fd) {}
  ~OwnedFd() { close(); }
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;

  int get() const { return fd_; }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

// Reads the pipe to its end (gnuplot's stderr, closed when it exits), or nothing once
// `deadline` passed first.
std::optional<std::string> read_all_until(int fd, std::chrono::steady_clock::time_point deadline) {
  std::string text;
  char buffer[4096];
  for (;;) {
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd readable{.fd = fd, .events = POLLIN, .revents = 0};
    const int ready =
        poll(&readable, 1, static_cast<int>(std::min<int64_t>(left.count(), INT_MAX)));
    if (ready < 0 && errno != EINTR) throw GnuplotError(system_error("waiting for gnuplot", errno));
    if (ready <= 0) continue;
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) {
      text.append(buffer, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      return text;
    }
  }
}

int wait_for(pid_t child) {
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) throw GnuplotError(system_error("waiting for gnuplot", errno));
  }
  return status;
}

}  // namespace

std::optional<std::filesystem::path> find_gnuplot() {
  const char* path = std::getenv("PATH");
  std::string_view directories = path != nullptr ? path : "";
  while (!directories.empty()) {
    const size_t colon = directories.find(':');
    const std::filesystem::path candidate =
        std::filesystem::path(directories.substr(0, colon)) / "gnuplot";
    // Absolute: gnuplot starts in the report's directory, where a relative PATH entry (".",
    // or an empty one) would name another file.
    if (access(candidate.c_str(), X_OK) == 0) return std::filesystem::absolute(candidate);
    directories.remove_prefix(colon == std::string_view::npos ? directories.size() : colon + 1);
  }
  return std::nullopt;
}

void run_gnuplot(const std::filesystem::path& directory, const std::string& script,
                 std::chrono::duration<double> patience) {
  const std::optional<std::filesystem::path> gnuplot = find_gnuplot();
  if (!gnuplot) {
    throw GnuplotError(fmt::format(
        "gnuplot is not installed (not on PATH), so the report's {} cannot draw its plot; run "
        "scripts/install-deps.sh (it installs gnuplot-nox)",
        script));
  }
  int pipe_ends[2];
  if (pipe2(pipe_ends, O_CLOEXEC) != 0) throw GnuplotError(system_error("pipe for gnuplot", errno));
  OwnedFd errors_in(pipe_ends[0]);
  OwnedFd errors_out(pipe_ends[1]);
  pid_t child = 0;
  std::string program = gnuplot->string();
  std::string argument = script;
  char* argv[] = {program.data(), argument.data(), nullptr};
  const int spawned =
      posix_spawn(&child, program.c_str(), ChildFiles(directory, errors_out.get()).get(), nullptr,
                  argv, environ);
  // Only the child may hold the write end now: reading ends when the child exits.
  errors_out.close();
  if (spawned != 0)
    throw GnuplotError(system_error(fmt::format("cannot start {}", program), spawned));
  const std::optional<std::string> errors =
      read_all_until(errors_in.get(),
                     std::chrono::steady_clock::now() +
                         std::chrono::duration_cast<std::chrono::steady_clock::duration>(patience));
  if (!errors) {
    kill(child, SIGKILL);
    wait_for(child);
    throw GnuplotError(
        fmt::format("gnuplot did not finish the report's {} within {} s and was stopped", script,
                    patience.count()));
  }
  const int status = wait_for(child);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  const std::string how = WIFEXITED(status) ? fmt::format("exit status {}", WEXITSTATUS(status))
                                            : fmt::format("signal {}", WTERMSIG(status));
  throw GnuplotError(fmt::format("gnuplot failed on the report's {} ({}); its messages:\n{}",
                                 script, how, *errors));
}

}  // namespace hetps::report
