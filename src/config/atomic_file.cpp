#include "config/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <utility>

#include <fmt/format.h>

namespace hetps::config {

namespace {

std::runtime_error system_failure(std::string_view doing, const std::filesystem::path& path) {
  return std::runtime_error(
      fmt::format("cannot {} {}: {}", doing, path.string(), std::strerror(errno)));
}

// Closes the descriptor however the scope is left.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  // Closes now, so that a failing close (a deferred write error) is seen.
  int close() { return ::close(std::exchange(fd_, -1)); }

 private:
  int fd_;
};

void write_durably(const std::filesystem::path& path, std::string_view text) {
  FileDescriptor file(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (file.get() < 0) throw system_failure("create", path);
  for (size_t written = 0; written < text.size();) {
    const ssize_t n = ::write(file.get(), text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw system_failure("write", path);
    written += static_cast<size_t>(n);
  }
  if (::fsync(file.get()) != 0) throw system_failure("flush to disk", path);
  if (file.close() != 0) throw system_failure("close", path);
}

// The rename itself is durable only once the directory that holds the name is flushed.
void flush_directory(const std::filesystem::path& dir) {
  FileDescriptor handle(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (handle.get() < 0 || ::fsync(handle.get()) != 0) throw system_failure("flush", dir);
}

}  // namespace

void write_file_atomically(const std::filesystem::path& file, std::string_view text,
                           std::string_view what) {
  std::filesystem::path temporary = file;
  temporary += fmt::format(".tmp-{}", getpid());
  try {
    const std::filesystem::path dir = file.has_parent_path() ? file.parent_path() : ".";
    std::filesystem::create_directories(dir);
    write_durably(temporary, text);
    std::filesystem::rename(temporary, file);
    flush_directory(dir);
  } catch (const std::exception& error) {
    std::error_code ignored;  // already failing: the first error is the one to report
    std::filesystem::remove(temporary, ignored);
    throw std::runtime_error(
        fmt::format("cannot write {} {}: {}", what, file.string(), error.what()));
  }
}

void check_can_write_in(const std::filesystem::path& dir) {
  std::filesystem::path existing = dir.empty() ? "." : dir;
  std::error_code error;
  while (!std::filesystem::exists(existing, error) && existing != ".") {
    existing = existing.has_parent_path() ? existing.parent_path() : ".";
  }
  if (!std::filesystem::is_directory(existing, error)) {
    throw std::runtime_error(fmt::format("{} is not a directory", existing.string()));
  }
  std::string probe = (existing / ".hetps-write-check-XXXXXX").string();
  const FileDescriptor file(::mkstemp(probe.data()));
  if (file.get() < 0) {
    throw std::runtime_error(
        fmt::format("no file can be created in {} ({})", existing.string(), std::strerror(errno)));
  }
  ::unlink(probe.c_str());
}

}  // namespace hetps::config
