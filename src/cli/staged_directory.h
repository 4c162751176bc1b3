// An output directory written under a temporary sibling (`<target>.tmp-<pid>`) and moved into
// place by commit(), so a failed or interrupted run never leaves a half-written directory
// where a finished one is expected.
//
//   StagedDirectory out("runs/bsp", /*replace=*/false);   // throws if runs/bsp exists
//   write_files(out.path());
//   out.commit();                                        // runs/bsp appears, complete
#pragma once

#include <filesystem>

namespace hetps::cli {

class StagedDirectory {
 public:
  // Throws UsageError when `target` exists and `replace` is false: checked here, before any
  // work is done.
  StagedDirectory(const std::filesystem::path& target, bool replace);
  // Removes the staging directory unless committed.
  ~StagedDirectory();
  StagedDirectory(const StagedDirectory&) = delete;
  StagedDirectory& operator=(const StagedDirectory&) = delete;

  // Where to write until commit().
  const std::filesystem::path& path() const { return staging_; }
  const std::filesystem::path& target() const { return target_; }

  // Moves the staged directory to `target`, replacing an existing one only now.
  void commit();

 private:
  void check_target_free() const;

  std::filesystem::path target_;
  std::filesystem::path staging_;
  bool replace_;
  bool committed_ = false;
};

}  // namespace hetps::cli
