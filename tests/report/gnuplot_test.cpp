#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "report/gnuplot.h"
#include "report_files.h"

namespace hetps::report {
namespace {

using ::testing::HasSubstr;
using testing::ScratchDirectory;
using testing::write_text;

std::string gnuplot_error(const std::filesystem::path& directory, const std::string& script,
                          std::chrono::duration<double> patience = kGnuplotPatience) {
  try {
    run_gnuplot(directory, script, patience);
  } catch (const GnuplotError& error) {
    return error.what();
  }
  ADD_FAILURE() << "gnuplot did not fail on " << script;
  return "";
}

TEST(GnuplotTest, DrawsInTheDirectoryItIsGiven) {
  if (!find_gnuplot()) GTEST_SKIP() << "gnuplot is not installed (scripts/install-deps.sh)";
  const ScratchDirectory scratch;
  write_text(scratch / "line.gp", "set terminal svg\nset output 'line.svg'\nplot x\n");
  run_gnuplot(scratch.path(), "line.gp");
  EXPECT_TRUE(std::filesystem::file_size(scratch / "line.svg") > 0);
}

TEST(GnuplotTest, AFailingScriptIsNamedWithGnuplotsMessage) {
  if (!find_gnuplot()) GTEST_SKIP() << "gnuplot is not installed (scripts/install-deps.sh)";
  const ScratchDirectory scratch;
  write_text(scratch / "broken.gp", "set terminal svg\nplot 'no-such-data.csv'\n");
  const std::string error = gnuplot_error(scratch.path(), "broken.gp");
  EXPECT_THAT(error, HasSubstr("gnuplot failed on the report's broken.gp (exit status 1)"));
  EXPECT_THAT(error, HasSubstr("no-such-data.csv"));  // gnuplot's own words
}

// Changes PATH for one scope.
class PathSetTo {
 public:
  explicit PathSetTo(const std::string& path) {
    const char* saved = std::getenv("PATH");
    saved_ = saved != nullptr ? saved : "";
    setenv("PATH", path.c_str(), 1);
  }
  ~PathSetTo() { setenv("PATH", saved_.c_str(), 1); }

 private:
  std::string saved_;
};

TEST(GnuplotTest, AMissingGnuplotSaysHowToInstallIt) {
  const ScratchDirectory scratch;
  const PathSetTo empty(scratch.path().string());
  EXPECT_FALSE(find_gnuplot().has_value());
  EXPECT_THAT(gnuplot_error(scratch.path(), "accuracy.gp"),
              HasSubstr("gnuplot is not installed (not on PATH), so the report's accuracy.gp "
                        "cannot draw its plot; run scripts/install-deps.sh"));
}

// A gnuplot that never finishes is stopped: the report fails with a message, it never hangs.
TEST(GnuplotTest, AGnuplotThatNeverFinishesIsStoppedAndNamed) {
  const ScratchDirectory scratch;
  const std::filesystem::path fake = scratch.path() / "gnuplot";
  write_text(fake, "#!/bin/sh\nexec sleep 600\n");
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  const PathSetTo only_the_fake(scratch.path().string() + ":/usr/bin:/bin");
  EXPECT_EQ(gnuplot_error(scratch.path(), "timeline-1.gp", std::chrono::milliseconds(200)),
            "gnuplot did not finish the report's timeline-1.gp within 0.2 s and was stopped");
}

}  // namespace
}  // namespace hetps::report
