// `hetps train` on the threads engine, as a user starts it: a run completes, an injected crash
// is survived, and a hung worker ends the run with the stall message and a non-zero exit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/hetps_process.h"

namespace hetps::cli {
namespace {

using ::testing::HasSubstr;
using testing::Outcome;
using testing::run_hetps;
using testing::ScratchDir;
using testing::tiny_run;

nlohmann::json summary_of(const std::filesystem::path& dir) {
  std::ifstream in(dir / "summary.json");
  return nlohmann::json::parse(in);
}

TEST(ThreadsTrain, SurvivesAnInjectedCrash) {
  const ScratchDir scratch;
  const auto run = scratch / "run";
  const Outcome outcome = run_hetps(tiny_run(
      {"train", "--quiet", "--out", run.string(), "--set", "engine=threads", "--set",
       "cluster.workers=3", "--set", "cluster.failures=[{worker=1, time=0, kind=\"crash\"}]"}));
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  const nlohmann::json summary = summary_of(run);
  EXPECT_EQ(summary.at("engine"), "threads");
  EXPECT_EQ(summary.at("stop_reason"), "max_samples");
  std::ifstream log(run / "log.jsonl");
  std::string line;
  int failures = 0;
  while (std::getline(log, line)) failures += line.find("\"worker_failed\"") != std::string::npos;
  EXPECT_EQ(failures, 1);
}

// The run took no checkpoint, yet its directory stays, with what it logged: the stall last.
TEST(ThreadsTrain, AHungWorkerEndsTheRunWithTheStallMessageAndKeepsItsLog) {
  const ScratchDir scratch;
  const std::filesystem::path run = scratch / "run";
  const Outcome outcome =
      run_hetps(tiny_run({"train", "--quiet", "--out", run.string(), "--set", "engine=threads",
                          "--set", "cluster.failures=[{worker=1, time=0, kind=\"hang\"}]", "--set",
                          "run.stall_warning_s=0.2", "--set", "run.stall_timeout_s=0.5"}));
  EXPECT_EQ(outcome.exit_code, 1) << outcome.output;
  EXPECT_THAT(outcome.output, HasSubstr("stalled"));
  EXPECT_THAT(outcome.output, HasSubstr("worker 1"));
  EXPECT_THAT(outcome.output, HasSubstr("run.stall_timeout_s = 0.5"));
  EXPECT_THAT(outcome.output, HasSubstr("; what the run logged up to then is kept in " +
                                        (run / "log.jsonl").string()));
  EXPECT_FALSE(std::filesystem::exists(run / "summary.json"));
  std::ifstream log(run / "log.jsonl");
  std::string line;
  std::string last;
  while (std::getline(log, line)) last = line;
  EXPECT_THAT(last, HasSubstr("\"type\":\"stalled\""));

  // Nothing to resume from: --force replaces it, as an earlier run of hetps.
  const Outcome again = run_hetps(tiny_run({"train", "--quiet", "--force", "--out", run.string()}));
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_TRUE(std::filesystem::exists(run / "summary.json"));
}

}  // namespace
}  // namespace hetps::cli
