#include "cli/directory_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>

#include "cli/usage_error.h"

namespace hetps::cli {
namespace {

UsageError in_use(const std::filesystem::path& dir) {
  return UsageError(
      fmt::format("{}: another hetps process is writing this directory (a run, a comparison "
                  "or a resume still going); wait for it to end or stop it first",
                  dir.string()));
}

// The directory opened and locked, or -1 where it cannot be (no such directory, a file system
// without locks): nothing to hold then. Throws when another process holds the lock.
int lock(const std::filesystem::path& dir) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return -1;
  if (flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
  const int error = errno;
  close(fd);
  if (error == EWOULDBLOCK) throw in_use(dir);
  return -1;
}

}  // namespace

DirectoryLock::DirectoryLock(const std::filesystem::path& dir) : fd_(lock(dir)) {}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0) close(fd_);  // which releases the lock
}

void DirectoryLock::check_free(const std::filesystem::path& dir) {
  const int fd = lock(dir);
  if (fd >= 0) close(fd);
}

}  // namespace hetps::cli
