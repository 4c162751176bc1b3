// An output directory written under a temporary sibling (`<target>.tmp-<pid>`) and moved into
// place by commit(), so a failed or interrupted run never leaves a half-written directory
// where a finished one is expected. A process killed outright (SIGKILL) leaves its staging
// directory behind: the next StagedDirectory of the same target removes it, once that process
// is gone and the directory's lock free.
//
//   StagedDirectory out("runs/bsp", run_output(), /*replace=*/false);  // throws if it exists
//   write_files(out.path());
//   out.commit();                                      // runs/bsp appears, complete
//
// A run that takes checkpoints commits at its first one, unfinished: from then on it must
// outlive the process (a killed run is resumed from its directory), and it writes in place,
// holding the directory's lock (directory_lock.h) until the StagedDirectory ends.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "cli/directory_lock.h"
#include "cli/output_kinds.h"

namespace hetps::cli {

// Whether `path` is `dir` or lies below it (both must exist).
bool lies_within(const std::filesystem::path& path, const std::filesystem::path& dir);

class StagedDirectory {
 public:
  // Throws UsageError, before any work is done, when `target` exists and `replace` is false,
  // or when `replace` is true but `target` is neither an earlier output of `kind` (a marker,
  // and nothing hetps does not write there) nor an empty directory, or it contains the working
  // directory; and when the staging directory cannot be created. The messages name `flag`, the
  // option `target` comes from (tune's runs lie under `--runs`).
  StagedDirectory(const std::filesystem::path& target, OutputKind kind, bool replace,
                  std::string flag = "--out");
  // Removes the staging directory unless committed.
  ~StagedDirectory();
  StagedDirectory(const StagedDirectory&) = delete;
  StagedDirectory& operator=(const StagedDirectory&) = delete;

  // Where to write: the staging directory until commit(), the target after it.
  const std::filesystem::path& path() const { return committed_ ? target_ : staging_; }
  const std::filesystem::path& target() const { return target_; }
  bool committed() const { return committed_; }

  // Moves the staged directory to `target`, replacing an existing one only now (checked
  // again, as at construction): that one is moved aside to `<target>.old-<pid>` first and
  // removed once the new one is in place; where it cannot be removed it stays there, with a
  // warning. Throws std::runtime_error naming `target` when the new one cannot be put in place
  // (the earlier one is put back). Once only: later calls do nothing.
  void commit();

 private:
  void check_target_replaceable() const;

  std::filesystem::path target_;
  OutputKind kind_;
  std::string flag_;
  std::filesystem::path staging_;
  std::optional<DirectoryLock> lock_;  // on the staging directory, and the target once committed
  bool replace_;
  bool committed_ = false;
};

}  // namespace hetps::cli
