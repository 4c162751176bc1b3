// The commands hetps tells the user to run name the program they ran: a binary of their own
// (examples/custom_model: hetps with their model registered) is not `hetps`, which would not
// know their model.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli/hetps_process.h"

namespace hetps::cli {
namespace {

using ::testing::HasSubstr;
using testing::kShardCrashed;
using ::testing::Not;
using testing::Outcome;
using testing::run_hetps;
using testing::ScratchDir;

// hetps under another name, as a user's own binary would be.
std::filesystem::path renamed_hetps(const ScratchDir& scratch) {
  const std::filesystem::path link = scratch / "my-hetps";
  std::filesystem::create_symlink(std::filesystem::absolute(HETPS_BINARY), link);
  return link;
}

TEST(ProgramName, TheResumeCommandNamesTheProgramRun) {
  const ScratchDir scratch;
  const std::filesystem::path run = scratch / "run";
  std::vector<std::string> args = {"train", "--quiet", "--out", run.string()};
  // A threads run whose second server shard crashes after a checkpoint (as in shard_crash_test).
  for (const char* set :
       {"engine=threads", "data.name=synthetic", "data.synthetic_train=2048",
        "data.synthetic_test=256", "train.max_samples=60000", "train.eval_interval=0.5",
        "cluster.workers=2", "cluster.servers=2", "cluster.shard_failures=[{shard=1,time=0.6}]",
        "run.checkpoint_interval=0.25"}) {
    args.push_back("--set");
    args.push_back(set);
  }
  const Outcome crashed = run_hetps(args, {}, renamed_hetps(scratch));
  ASSERT_EQ(crashed.exit_code, kShardCrashed) << crashed.output;
  EXPECT_THAT(crashed.output, HasSubstr("continue with: my-hetps train --resume " + run.string()));
}

TEST(ProgramName, HelpAndUnknownCommandsNameTheProgramRun) {
  const ScratchDir scratch;
  const std::filesystem::path renamed = renamed_hetps(scratch);
  const Outcome unknown = run_hetps({"trian"}, {}, renamed);
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.output, HasSubstr("the commands are train, "));
  EXPECT_THAT(unknown.output, HasSubstr("(my-hetps --help)"));
  const Outcome bad_flag = run_hetps({"train", "--no-such-flag"}, {}, renamed);
  EXPECT_THAT(bad_flag.output, HasSubstr("Run 'my-hetps train --help'"));
  const Outcome help = run_hetps({"--help"}, {}, renamed);
  EXPECT_THAT(help.output, HasSubstr("Usage: my-hetps"));
  EXPECT_THAT(help.output, Not(HasSubstr("Usage: hetps")));
}

}  // namespace
}  // namespace hetps::cli
