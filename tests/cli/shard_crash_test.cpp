// An injected server-shard crash (`cluster.shard_failures`) from the command line (issue 9): on
// threads it ends the run with exit status 3 and a message naming the shard, the last checkpoint
// (intact) and the command that continues the run; that command finishes it, not crashed again
// by the crash that happened. Without a checkpoint the message says the run is lost, and why, and
// where its log is kept.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/hetps_process.h"

namespace hetps::cli {
namespace {

using ::testing::HasSubstr;
using testing::kShardCrashed;
using ::testing::Not;
using testing::Outcome;
using testing::read_file;
using testing::run_hetps;
using testing::ScratchDir;

// A threads run of two shards, the second crashing at `crash_at` s; a checkpoint every
// `checkpoint_interval` s.
std::vector<std::string> crashing_run(std::vector<std::string> args, const std::string& crash_at,
                                      const std::string& checkpoint_interval) {
  for (const std::string& set :
       {std::string("engine=threads"), std::string("data.name=synthetic"),
        std::string("data.synthetic_train=2048"), std::string("data.synthetic_test=256"),
        std::string("train.max_samples=60000"), std::string("train.eval_interval=0.5"),
        std::string("cluster.workers=4"), std::string("cluster.speeds=[1,1,0.5,0.25]"),
        std::string("cluster.servers=2"),
        "cluster.shard_failures=[{shard=1,time=" + crash_at + "}]",
        "run.checkpoint_interval=" + checkpoint_interval}) {
    args.push_back("--set");
    args.push_back(set);
  }
  return args;
}

std::vector<nlohmann::json> log_records(const std::filesystem::path& run) {
  std::vector<nlohmann::json> records;
  std::istringstream log(read_file(run / "log.jsonl"));
  for (std::string line; std::getline(log, line);) records.push_back(nlohmann::json::parse(line));
  return records;
}

// The text of `output` between `before` and `after`.
std::string text_between(const std::string& output, const std::string& before,
                         const std::string& after) {
  const size_t start = output.find(before);
  if (start == std::string::npos) return "";
  const size_t end = output.find(after, start + before.size());
  return end == std::string::npos
             ? ""
             : output.substr(start + before.size(), end - start - before.size());
}

TEST(ShardCrash, EndsTheRunNamingTheLastCheckpointAndResumeFinishesIt) {
  const ScratchDir scratch;
  const auto run = scratch / "run";
  const Outcome crashed =
      run_hetps(crashing_run({"train", "--quiet", "--out", run.string()}, "0.6", "0.25"));
  ASSERT_EQ(crashed.exit_code, kShardCrashed) << crashed.output;
  EXPECT_THAT(crashed.output,
              HasSubstr("hetps: server shard 1 crashed at 0.600 s of run time "
                        "(cluster.shard_failures): its part of the model is gone, so the run "
                        "ended there. Its last checkpoint, " +
                        (run / "checkpoints").string() + "/checkpoint-"));
  EXPECT_THAT(crashed.output, HasSubstr("continue with: hetps train --resume " + run.string()));
  EXPECT_FALSE(std::filesystem::exists(run / "summary.json"));
  const std::vector<nlohmann::json> records = log_records(run);
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(records.back().at("type"), "shard_failed");
  EXPECT_EQ(records.back().at("shard"), 1);
  EXPECT_EQ(records.back().at("time"), 0.6);

  // The checkpoint named is there and whole (the resume reads it without a warning), at a
  // run time before the crash.
  const std::filesystem::path checkpoint =
      text_between(crashed.output, "Its last checkpoint, ", " (at ");
  ASSERT_TRUE(std::filesystem::exists(checkpoint)) << crashed.output;
  EXPECT_EQ(read_file(checkpoint).substr(0, 8), "HETPSCKP");
  EXPECT_LT(std::stod(text_between(crashed.output, " (at ", " s of run time)")), 0.6);

  // The directory remembers the crash; a record of a crash this run's config does not inject is
  // refused, and leaves the run as it was.
  const std::string crashes = read_file(run / "shard_crashes.json");
  EXPECT_EQ(nlohmann::json::parse(crashes),
            nlohmann::json::parse(R"({"shard_crashes": [{"shard": 1, "time": 0.6}]})"));
  std::ofstream(run / "shard_crashes.json", std::ios::trunc)
      << R"({"shard_crashes": [{"shard": 0, "time": 0.6}]})";
  const Outcome refused = run_hetps({"train", "--quiet", "--resume", run.string()});
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_THAT(refused.output, HasSubstr("records a crash of server shard 0 at 0.6 s, which "
                                        "cluster.shard_failures of this run does not inject"));
  std::ofstream(run / "shard_crashes.json", std::ios::trunc) << crashes;

  const Outcome resumed = run_hetps({"train", "--quiet", "--resume", run.string()});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_THAT(resumed.output, Not(HasSubstr("warning")));
  const auto summary = nlohmann::json::parse(read_file(run / "summary.json"));
  EXPECT_EQ(summary.at("engine"), "threads");
  EXPECT_EQ(summary.at("stop_reason"), "max_samples");
  EXPECT_GE(summary.at("samples").get<int64_t>(), 60000);
  EXPECT_GT(summary.at("total_time").get<double>(), 0.6);
  // The log was cut back to the checkpoint and went on past the crash's time without it.
  for (const nlohmann::json& record : log_records(run)) {
    EXPECT_NE(record.at("type"), "shard_failed") << record;
  }
}

TEST(ShardCrash, WithoutACheckpointTheRunIsLostAndSaysWhy) {
  const ScratchDir scratch;
  const auto run = scratch / "run";
  const Outcome crashed =
      run_hetps(crashing_run({"train", "--quiet", "--out", run.string()}, "0.2", "0"));
  ASSERT_EQ(crashed.exit_code, kShardCrashed) << crashed.output;
  EXPECT_THAT(crashed.output,
              HasSubstr("hetps: server shard 1 crashed at 0.200 s of run time "
                        "(cluster.shard_failures): its part of the model is gone, and the run is "
                        "lost: no checkpoint was taken (run.checkpoint_interval = 0); what the "
                        "run logged up to then is kept in " +
                        (run / "log.jsonl").string()));
  // Kept as a killed run leaves it: no summary, nothing to resume from, the crash logged last.
  EXPECT_FALSE(std::filesystem::exists(run / "summary.json"));
  EXPECT_FALSE(std::filesystem::exists(run / "checkpoints"));
  const std::vector<nlohmann::json> records = log_records(run);
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(records.back().at("type"), "shard_failed");
}

}  // namespace
}  // namespace hetps::cli
