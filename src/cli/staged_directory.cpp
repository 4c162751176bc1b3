#include "cli/staged_directory.h"

#include <unistd.h>

#include <fmt/format.h>

#include "cli/usage_error.h"

namespace hetps::cli {
namespace fs = std::filesystem;

StagedDirectory::StagedDirectory(const fs::path& target, bool replace) : replace_(replace) {
  // "runs/bsp/" names the same directory as "runs/bsp"; the staging sibling needs the latter.
  target_ = target.lexically_normal();
  if (!target_.has_filename()) target_ = target_.parent_path();
  check_target_free();
  staging_ = target_;
  staging_ += fmt::format(".tmp-{}", getpid());
  fs::remove_all(staging_);  // left by a killed run that had our pid
  fs::create_directories(staging_);
}

StagedDirectory::~StagedDirectory() {
  if (committed_) return;
  std::error_code ignored;  // a destructor must not throw; a leftover is named .tmp-<pid>
  fs::remove_all(staging_, ignored);
}

void StagedDirectory::commit() {
  check_target_free();
  fs::remove_all(target_);
  fs::rename(staging_, target_);
  committed_ = true;
}

void StagedDirectory::check_target_free() const {
  if (!replace_ && fs::exists(target_)) {
    throw UsageError(
        fmt::format("output directory {} exists; pass --force to replace it", target_.string()));
  }
}

}  // namespace hetps::cli
