// An exclusive advisory lock (flock(2)) on a run directory while a process writes it, so that a
// second hetps (a resume of a run that is still going, a --force over it) refuses instead of
// writing into the same files. A lock follows the directory's inode: one taken on a staging
// directory holds on after the rename that commits it. Where the file system keeps no locks,
// none is held and nothing is said.
#pragma once

#include <filesystem>

namespace hetps::cli {

class DirectoryLock {
 public:
  // Throws UsageError naming `dir` when another process holds its lock.
  explicit DirectoryLock(const std::filesystem::path& dir);
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

  // False where the directory could not be locked (a file system without locks): nothing is
  // held then.
  bool held() const { return fd_ >= 0; }

  // Throws the same UsageError when another process holds `dir`'s lock now.
  static void check_free(const std::filesystem::path& dir);

 private:
  int fd_ = -1;
};

}  // namespace hetps::cli
