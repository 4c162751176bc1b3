// Checkpoints in `hetps compare`: each run takes them as `hetps train` does, in its own
// directory; SIGINT during a run stops the comparison with a checkpoint and says how to go on;
// `compare --resume` continues the stopped run from its checkpoint to the summaries the
// uninterrupted comparison writes, and a run ended by a server-shard crash from its last one. The
// signal is sent once the second run holds a checkpoint, so it lands inside that run however fast
// the machine is.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/hetps_process.h"

namespace hetps::cli {
namespace {

using testing::checkpoints_in;
using ::testing::HasSubstr;
using testing::interrupt_after_checkpoints;
using testing::Outcome;
using testing::read_file;
using testing::run_hetps;
using testing::ScratchDir;
using testing::summary_without_wall_clock;

// bsp then asp, each a few seconds of virtual time with a checkpoint every 0.5 s of it.
std::vector<std::string> checkpointed_comparison(const std::filesystem::path& out) {
  std::vector<std::string> args = {"compare", "--quiet", "--protocols",
                                   "bsp,asp", "--out",   out.string()};
  for (const char* set :
       {"data.name=synthetic", "data.synthetic_train=1024", "data.synthetic_test=128",
        "train.max_samples=10000", "train.eval_interval=0.5", "cluster.workers=4",
        "cluster.speeds=[1,1,0.5,0.25]", "run.checkpoint_interval=0.5"}) {
    args.push_back("--set");
    args.push_back(set);
  }
  return args;
}

constexpr const char* kComparedRuns[] = {"bsp/seed-1", "asp/seed-1"};

TEST(CompareCheckpoints, EachRunTakesThemInItsOwnDirectory) {
  const ScratchDir scratch;
  const auto out = scratch / "cmp";
  const Outcome outcome = run_hetps(checkpointed_comparison(out));
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  for (const char* run : kComparedRuns) {
    EXPECT_GE(checkpoints_in(out / run), 1U) << run;
    EXPECT_TRUE(std::filesystem::exists(out / run / "summary.json")) << run;
  }
}

TEST(CompareCheckpoints, AComparisonStoppedBySigintResumesToTheSameSummaries) {
  const ScratchDir scratch;
  const auto reference = scratch / "reference";
  const Outcome uninterrupted = run_hetps(checkpointed_comparison(reference));
  ASSERT_EQ(uninterrupted.exit_code, 0) << uninterrupted.output;

  const auto out = scratch / "cmp";
  const auto output = scratch / "interrupted.out";
  const int status =
      interrupt_after_checkpoints(checkpointed_comparison(out), out / "asp/seed-1", 1, output);
  ASSERT_EQ(status, 130) << read_file(output);
  EXPECT_THAT(read_file(output), HasSubstr("hetps: stopped by SIGINT at "));
  EXPECT_THAT(read_file(output),
              HasSubstr("with a checkpoint in " + (out / "asp/seed-1/checkpoints").string() +
                        "; continue with: hetps compare --resume " + out.string() + "\n"));
  EXPECT_TRUE(std::filesystem::exists(out / "bsp/seed-1/summary.json"));
  EXPECT_FALSE(std::filesystem::exists(out / "asp/seed-1/summary.json"));
  EXPECT_FALSE(std::filesystem::exists(out / "summary.csv"));

  const Outcome resumed = run_hetps({"compare", "--resume", out.string()});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_THAT(resumed.output, HasSubstr("[1/2] bsp seed 1: finished before, kept"));
  EXPECT_THAT(resumed.output, HasSubstr("[2/2] asp seed 1: continues from its checkpoint at "));
  for (const char* run : kComparedRuns) {
    EXPECT_EQ(summary_without_wall_clock(out / run), summary_without_wall_clock(reference / run))
        << run;
  }
  // On sim the continued run is the uninterrupted one: its log too, byte for byte.
  EXPECT_EQ(read_file(out / "asp/seed-1/log.jsonl"), read_file(reference / "asp/seed-1/log.jsonl"));
  EXPECT_TRUE(std::filesystem::exists(out / "summary.csv"));
}

// On threads, a run whose server shard crashes (cluster.shard_failures) after a checkpoint ends
// the comparison with exit status 3 and the command that continues it, which finishes the run
// from that checkpoint without crashing it again.
TEST(CompareCheckpoints, AShardCrashSaysToResumeTheComparison) {
  const ScratchDir scratch;
  const auto out = scratch / "cmp";
  std::vector<std::string> args = {"compare", "--quiet", "--protocols",
                                   "bsp",     "--out",   out.string()};
  for (const char* set :
       {"engine=threads", "data.name=synthetic", "data.synthetic_train=2048",
        "data.synthetic_test=256", "train.max_samples=60000", "train.eval_interval=0.5",
        "cluster.workers=4", "cluster.speeds=[1,1,0.5,0.25]", "cluster.servers=2",
        "cluster.shard_failures=[{shard=1,time=0.6}]", "run.checkpoint_interval=0.25"}) {
    args.push_back("--set");
    args.push_back(set);
  }
  const Outcome crashed = run_hetps(args);
  ASSERT_EQ(crashed.exit_code, 3) << crashed.output;
  EXPECT_THAT(crashed.output,
              HasSubstr("Its last checkpoint, " + (out / "bsp/seed-1/checkpoints").string() +
                        "/checkpoint-"));
  EXPECT_THAT(crashed.output, HasSubstr("continue with: hetps compare --resume " + out.string()));

  const Outcome resumed = run_hetps({"compare", "--quiet", "--resume", out.string()});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  const auto summary = nlohmann::json::parse(read_file(out / "bsp/seed-1/summary.json"));
  EXPECT_EQ(summary.at("stop_reason"), "max_samples");
}

}  // namespace
}  // namespace hetps::cli
