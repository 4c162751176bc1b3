#include "cli/staged_directory.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/usage_error.h"

namespace hetps::cli {
namespace fs = std::filesystem;
namespace {

// What the user can do about what is in the way: a resume cannot go elsewhere.
std::string way_out(std::string_view flag) {
  if (flag == "--resume") return "move it away yourself, then resume again";
  return fmt::format("remove it yourself or choose another {}", flag);
}

UsageError not_an_output(const fs::path& target, const OutputKind& kind, std::string_view flag) {
  return UsageError(fmt::format("refusing to replace {}: it is not {} (those hold {}); {}",
                                target.string(), kind.name, fmt::join(kind.markers, " or "),
                                way_out(flag)));
}

bool holds_any(const fs::path& dir, const std::vector<std::string>& markers) {
  return std::any_of(markers.begin(), markers.end(),
                     [&](const std::string& marker) { return fs::exists(dir / marker); });
}

// Throws when `target`, an earlier output of `kind` by its markers, holds anything else, at
// any depth.
void check_nothing_foreign(const fs::path& target, const OutputKind& kind, std::string_view flag) {
  const std::optional<fs::path> foreign = first_foreign(target, kind.foreign);
  if (!foreign) return;
  throw UsageError(fmt::format("refusing to replace {}: it holds {}, which is not part of {}; {}",
                               target.string(), foreign->lexically_relative(target).string(),
                               kind.name, way_out(flag)));
}

// The pid in `name` when it is `<prefix><digits>`.
std::optional<pid_t> staging_pid(std::string_view name, std::string_view prefix) {
  if (!name.starts_with(prefix)) return std::nullopt;
  const std::string_view digits = name.substr(prefix.size());
  pid_t pid = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
  if (error != std::errc() || end != digits.data() + digits.size() || pid <= 0) {
    return std::nullopt;
  }
  return pid;
}

// A killed process whose parent has not reaped it yet (a zombie: `timeout -s KILL` signals its
// own process group too, and dies before it reaps the run) still answers kill(), but is gone.
bool process_is_gone(pid_t pid) {
  if (kill(pid, 0) != 0) return errno == ESRCH;
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  std::string line;
  std::getline(stat, line);
  // "pid (command) state ...": the command may hold spaces and parentheses.
  const size_t command_end = line.rfind(')');
  return command_end != std::string::npos && line.compare(command_end, 3, ") Z") == 0;
}

// Removes the staging directories of `target` that earlier processes left when they were
// killed (SIGKILL, a lost node: no destructor ran), so that they do not pile up beside the
// outputs. One stays where its process is alive on this host or its lock is held (a staging
// directory takes its name only once locked, so a process on another host sharing the file
// system holds the lock for as long as it has the name), where it cannot be inspected, and
// where it holds anything an output of `kind` does not: a directory of the user's that only
// has such a name.
// Nothing is removed where the file system keeps no locks (the caller's own could not be
// locked): a live process's directory would look abandoned there. `.old-<pid>` ones are never
// touched: one may hold the only copy of an earlier output whose replacement was killed
// halfway.
void remove_abandoned_stagings(const fs::path& target, const OutputKind& kind) {
  const std::string prefix = target.filename().string() + ".tmp-";
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  try {
    for (const fs::directory_entry& entry : fs::directory_iterator(parent)) {
      const std::optional<pid_t> pid = staging_pid(entry.path().filename().string(), prefix);
      if (!pid || !entry.is_directory() || !process_is_gone(*pid)) continue;
      if (first_foreign(entry.path(), kind.foreign)) continue;
      try {
        DirectoryLock::check_free(entry.path());
      } catch (const UsageError&) {
        continue;
      }
      std::error_code failed;
      fs::remove_all(entry.path(), failed);
      if (!failed) {
        fmt::print(stderr, "hetps: removed {}, left unfinished by a process that was killed\n",
                   entry.path().string());
      }
    }
  } catch (const fs::filesystem_error&) {
    // Tidying up is a courtesy: a run never fails for it.
  }
}

}  // namespace

bool lies_within(const fs::path& path, const fs::path& dir) {
  const fs::path outer = fs::canonical(dir);
  const fs::path inner = fs::canonical(path);
  return std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end()).first == outer.end();
}

StagedDirectory::StagedDirectory(const fs::path& target, OutputKind kind, bool replace,
                                 std::string flag)
    : kind_(std::move(kind)), flag_(std::move(flag)), replace_(replace) {
  // "runs/bsp/" names the same directory as "runs/bsp"; the staging sibling needs the latter.
  target_ = target.lexically_normal();
  if (!target_.has_filename()) target_ = target_.parent_path();
  check_target_replaceable();
  staging_ = target_;
  staging_ += fmt::format(".tmp-{}", getpid());
  // Made under another name, locked, then renamed (the lock is the directory's, whatever its
  // name): a directory named as a staging one is locked for as long as its process lives.
  fs::path unlocked = staging_;
  unlocked += ".new";
  try {
    for (const fs::path& left : {staging_, unlocked}) fs::remove_all(left);  // a killed run's
    fs::create_directories(unlocked);
    lock_.emplace(unlocked);
    fs::rename(unlocked, staging_);
  } catch (const fs::filesystem_error& error) {
    throw UsageError(fmt::format("{} {}: cannot create the output directory: {}", flag_,
                                 target_.string(), error.code().message()));
  }
  if (lock_->held()) remove_abandoned_stagings(target_, kind_);
}

StagedDirectory::~StagedDirectory() {
  if (committed_) return;
  std::error_code ignored;  // a destructor must not throw; a leftover is named .tmp-<pid>
  fs::remove_all(staging_, ignored);
}

void StagedDirectory::commit() {
  if (committed_) return;
  check_target_replaceable();
  // The earlier output is moved aside before the new one takes its place, and only then
  // removed: a removal that fails halfway (a file the user may not delete) then costs neither
  // output, and leaves the old one whole beside the new.
  std::optional<fs::path> earlier;
  try {
    if (fs::exists(target_)) {
      earlier = fs::path(target_).concat(fmt::format(".old-{}", getpid()));
      fs::remove_all(*earlier);  // left by a killed process that had our pid
      fs::rename(target_, *earlier);
    }
    fs::rename(staging_, target_);
  } catch (const fs::filesystem_error& error) {
    if (earlier && !fs::exists(target_)) {
      std::error_code ignored;
      fs::rename(*earlier, target_, ignored);
    }
    throw std::runtime_error(fmt::format("{} {}: cannot put the output in place: {}", flag_,
                                         target_.string(), error.code().message()));
  }
  committed_ = true;
  std::error_code failed;
  if (earlier) fs::remove_all(*earlier, failed);
  if (failed) {
    fmt::print(stderr,
               "hetps: warning: the earlier {} was moved to {}, which could not be "
               "removed: {}\n",
               target_.string(), earlier->string(), failed.message());
  }
}

void StagedDirectory::check_target_replaceable() const {
  try {
    if (!fs::exists(target_)) return;
    if (!replace_) {
      throw UsageError(
          fmt::format("output directory {} exists; pass --force to replace it", target_.string()));
    }
    if (!fs::is_directory(target_)) throw not_an_output(target_, kind_, flag_);
    DirectoryLock::check_free(target_);
    // Replacing it would delete the directory the user works in (`--out . --force`).
    if (lies_within(fs::current_path(), target_)) {
      throw UsageError(fmt::format(
          "refusing to replace {}: it contains the current working directory", target_.string()));
    }
    if (fs::is_empty(target_)) return;
    if (!holds_any(target_, kind_.markers)) throw not_an_output(target_, kind_, flag_);
    check_nothing_foreign(target_, kind_, flag_);
  } catch (const fs::filesystem_error& failure) {
    throw UsageError(fmt::format("{} {}: cannot inspect the output directory: {}", flag_,
                                 target_.string(), failure.code().message()));
  }
}

}  // namespace hetps::cli
