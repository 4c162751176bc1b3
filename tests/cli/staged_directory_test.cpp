// The staging directories that killed processes leave beside an output are removed by the next
// one written there, and nothing else is.
#include "cli/staged_directory.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli/directory_lock.h"
#include "cli/output_kinds.h"
#include "cli/usage_error.h"
#include "support/scratch_dir.h"

namespace hetps::cli {
namespace {

namespace fs = std::filesystem;

// The pid of a process that has ended (and been reaped): no process has it, until the kernel
// hands it out again, which takes a whole cycle of the pid space.
pid_t pid_of_an_ended_process() {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  int status = 0;
  waitpid(child, &status, 0);
  return child;
}

fs::path sibling(const fs::path& target, const std::string& suffix) {
  return fs::path(target).concat(suffix);
}

fs::path make_directory_with_a_file(const fs::path& dir) {
  fs::create_directories(dir);
  std::ofstream(dir / "log.jsonl") << "{}\n";
  return dir;
}

TEST(StagedDirectory, RemovesTheStagingThatAKilledProcessLeft) {
  const hetps::testing::ScratchDir scratch;
  const fs::path target = scratch / "run";
  const std::string dead = std::to_string(pid_of_an_ended_process());
  const fs::path abandoned = make_directory_with_a_file(sibling(target, ".tmp-" + dead));
  const fs::path of_a_live_process =
      make_directory_with_a_file(sibling(target, ".tmp-" + std::to_string(getppid())));
  // A commit killed between moving the earlier output aside and putting the new one in place:
  // the earlier output's only copy.
  const fs::path moved_aside = make_directory_with_a_file(sibling(target, ".old-" + dead));
  const fs::path not_a_pid = make_directory_with_a_file(sibling(target, ".tmp-" + dead + "x"));
  const fs::path of_another_output =
      make_directory_with_a_file(sibling(scratch / "other", ".tmp-" + dead));
  // Named as a staging one, but holding what no run writes: the user's.
  const fs::path of_the_user = make_directory_with_a_file(
      sibling(target, ".tmp-" + std::to_string(pid_of_an_ended_process())));
  std::ofstream(of_the_user / "notes.txt") << "mine";

  StagedDirectory out(target, run_output(), /*replace=*/false);

  EXPECT_FALSE(fs::exists(abandoned));
  EXPECT_TRUE(fs::exists(of_a_live_process / "log.jsonl"));
  EXPECT_TRUE(fs::exists(moved_aside / "log.jsonl"));
  EXPECT_TRUE(fs::exists(not_a_pid / "log.jsonl"));
  EXPECT_TRUE(fs::exists(of_another_output / "log.jsonl"));
  EXPECT_TRUE(fs::exists(of_the_user / "notes.txt"));
  // Ours took its name locked, and nothing else.
  EXPECT_THROW(DirectoryLock::check_free(out.path()), UsageError);
  EXPECT_FALSE(fs::exists(sibling(out.path(), ".new")));
}

// Found by a probe: `timeout -s KILL` kills its own process group too, so nobody reaps the run
// it bounded at once, and a resume right after it left the run's staging directory behind.
TEST(StagedDirectory, RemovesTheStagingOfAKilledProcessNotYetReaped) {
  const hetps::testing::ScratchDir scratch;
  const fs::path target = scratch / "run";
  const pid_t zombie = fork();
  if (zombie == 0) _exit(0);
  // The child is a zombie once its /proc entry says so; it stays one until waitpid below.
  const fs::path stat = "/proc/" + std::to_string(zombie) + "/stat";
  for (int tries = 0; tries < 1000; ++tries) {
    std::string line;
    std::getline(std::ifstream(stat), line);
    if (line.find(") Z") != std::string::npos) break;
    usleep(1000);
  }
  const fs::path abandoned =
      make_directory_with_a_file(sibling(target, ".tmp-" + std::to_string(zombie)));
  {
    StagedDirectory out(target, run_output(), /*replace=*/false);
    EXPECT_FALSE(fs::exists(abandoned));
  }
  int status = 0;
  waitpid(zombie, &status, 0);
}

// A process on another host that shares the file system has a pid that means nothing here:
// its lock is what says it is still writing.
TEST(StagedDirectory, KeepsAStagingWhoseLockIsHeld) {
  const hetps::testing::ScratchDir scratch;
  const fs::path target = scratch / "run";
  const fs::path held = make_directory_with_a_file(
      sibling(target, ".tmp-" + std::to_string(pid_of_an_ended_process())));
  const DirectoryLock lock(held);

  StagedDirectory out(target, run_output(), /*replace=*/false);

  EXPECT_TRUE(fs::exists(held / "log.jsonl"));
}

}  // namespace
}  // namespace hetps::cli
