// The directory a comparison gives each of its entries' runs.
#include <gtest/gtest.h>

#include <string>

#include "cli/run_files.h"

namespace hetps::cli {
namespace {

TEST(RunDirectoryName, KeepsWhatADirectoryNameMayHoldAndReplacesTheRest) {
  EXPECT_EQ(run_directory_name("ssp:staleness=8"), "ssp_staleness_8");
  EXPECT_EQ(run_directory_name("sync_switch:policy_file=a/b.json"),
            "sync_switch_policy_file_a_b.json");
}

// Found by hand: an entry naming a policy file by a long path failed its first run with
// "File name too long", after the comparison's plan was written.
TEST(RunDirectoryName, ALongNameIsCutAndKeptApartByItsDigest) {
  const std::string entry = "sync_switch:policy_file=" + std::string(300, 'd');
  const std::string directory = run_directory_name(entry + "/1.json");
  EXPECT_EQ(directory.size(), kLongestRunDirectoryName);
  EXPECT_EQ(directory.substr(0, 30), "sync_switch_policy_file_dddddd");
  EXPECT_NE(directory, run_directory_name(entry + "/2.json"));
  EXPECT_EQ(directory, run_directory_name(entry + "/1.json"));
  const std::string longest(kLongestRunDirectoryName, 'x');
  EXPECT_EQ(run_directory_name(longest), longest);
}

}  // namespace
}  // namespace hetps::cli
