// `hetps tune petrel` on a tiny synthetic job, and `compare` with the agent file it writes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/hetps_process.h"

namespace hetps::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::Outcome;
using testing::read_file;
using testing::run_hetps;
using testing::ScratchDir;

// The episodes' job, smaller than tune's defaults: four workers, a few thousand samples.
std::vector<std::string> with_tiny_job(std::vector<std::string> args) {
  for (const char* set : {"cluster.workers=4", "train.max_samples=3000",
                          "protocol.regroup_interval=0.1", "protocol.max_communities=2"}) {
    args.push_back("--set");
    args.push_back(set);
  }
  return args;
}

TEST(TunePetrel, TrainsWritesTheAgentAndCompareRunsWithIt) {
  const ScratchDir scratch;
  const fs::path agent = scratch / "agent.pt";
  const Outcome tune = run_hetps(with_tiny_job({"tune", "petrel", "--episodes", "3", "--threads",
                                                "2", "--held-out", "2", "--out", agent.string()}));
  ASSERT_EQ(tune.exit_code, 0) << tune.output;
  EXPECT_THAT(tune.output, HasSubstr("[3/3] "));
  EXPECT_THAT(tune.output, HasSubstr("mean reward: heuristic "));
  EXPECT_THAT(tune.output, HasSubstr("agent file: " + agent.string()));
  ASSERT_TRUE(fs::exists(agent));
  EXPECT_FALSE(fs::exists(agent.string() + ".partial"));
  const nlohmann::json evaluation =
      nlohmann::json::parse(read_file(agent.string() + ".evaluation.json"));
  EXPECT_EQ(evaluation.at("episodes"), 3);
  ASSERT_EQ(evaluation.at("clusters").size(), 2u);
  for (const nlohmann::json& cluster : evaluation.at("clusters")) {
    EXPECT_GT(cluster.at("heuristic").at("decisions"), 0);
    EXPECT_GT(cluster.at("learned").at("decisions"), 0);
  }

  // Through compare: an entry may name the agent file by its path.
  const std::string entry = "petrel:agent=learned:agent_file=" + agent.string();
  const Outcome compare =
      run_hetps({"compare", "--quiet", "--out", (scratch / "compare").string(), "--protocols",
                 entry, "--set", "data.name=synthetic", "--set", "data.synthetic_train=512",
                 "--set", "data.synthetic_test=128", "--set", "train.max_samples=2000", "--set",
                 "cluster.workers=4", "--set", "protocol.profile_steps=2"});
  ASSERT_EQ(compare.exit_code, 0) << compare.output;
  std::string run_name = entry;
  std::replace(run_name.begin(), run_name.end(), '/', '_');
  EXPECT_THAT(read_file(scratch / "compare" / "summary.csv"), HasSubstr(run_name + ",petrel,"));
  std::string log;
  for (const auto& file : fs::recursive_directory_iterator(scratch / "compare")) {
    if (file.path().filename() == "log.jsonl") log = read_file(file.path());
  }
  EXPECT_THAT(log, HasSubstr("\"reason\":\"profiled\""));
  EXPECT_THAT(log, HasSubstr("\"staleness\":"));
}

// The episodes' own synthetic data set is a default like the others: a job may name another.
TEST(TunePetrel, TheJobMayNameAnotherDataSet) {
  const ScratchDir scratch;
  const Outcome tune = run_hetps({"tune", "petrel", "--episodes", "1", "--set", "data.name=mnist",
                                  "--set", "data.dir=" + (scratch / "empty").string(), "--out",
                                  (scratch / "agent.pt").string()});
  EXPECT_EQ(tune.exit_code, 2) << tune.output;
  EXPECT_THAT(tune.output, HasSubstr("train-images-idx3-ubyte: file not found (data.name = "
                                     "'mnist'"));
}

TEST(TunePetrel, BadAgentSettingsAreNamed) {
  const ScratchDir scratch;
  const std::vector<std::string> job = {
      "--set", "data.name=synthetic",  "--set", "train.max_samples=500",
      "--set", "protocol.name=petrel", "--set", "protocol.agent=learned"};
  std::vector<std::string> no_file = {"train", "--out", (scratch / "a").string()};
  no_file.insert(no_file.end(), job.begin(), job.end());
  const Outcome without = run_hetps(no_file);
  EXPECT_EQ(without.exit_code, 2) << without.output;
  EXPECT_THAT(without.output, HasSubstr("protocol.agent = \"learned\" needs protocol.agent_file"));

  const fs::path missing = scratch / "missing.pt";
  std::vector<std::string> missing_file = no_file;
  missing_file[2] = (scratch / "b").string();
  missing_file.insert(missing_file.end(), {"--set", "protocol.agent_file=" + missing.string()});
  const Outcome not_there = run_hetps(missing_file);
  EXPECT_EQ(not_there.exit_code, 2) << not_there.output;
  EXPECT_THAT(not_there.output, HasSubstr("agent file " + missing.string() + ": no such file"));
  missing_file.back() = "protocol.agent_file=/dev/null";
  const Outcome device = run_hetps(missing_file);
  EXPECT_EQ(device.exit_code, 2) << device.output;
  EXPECT_THAT(device.output, HasSubstr("agent file /dev/null: a device; expected an agent file"));

  const Outcome on_threads = run_hetps({"tune", "petrel", "--episodes", "1", "--set",
                                        "engine=threads", "--out", (scratch / "c.pt").string()});
  EXPECT_EQ(on_threads.exit_code, 2) << on_threads.output;
  EXPECT_THAT(on_threads.output, HasSubstr("engine = \"threads\": hetps tune petrel trains on "
                                           "simulator episodes"));

  // The episodes decide with the agent being trained: one given would do nothing.
  for (const std::string set : {"protocol.agent=learned", "protocol.agent_file=any.pt"}) {
    const Outcome given = run_hetps(
        {"tune", "petrel", "--episodes", "1", "--set", set, "--out", (scratch / "d.pt").string()});
    EXPECT_EQ(given.exit_code, 2) << given.output;
    EXPECT_THAT(given.output, HasSubstr("--set " + set +
                                        ": hetps tune petrel trains the agent its episodes "
                                        "decide with"));
  }
  EXPECT_FALSE(fs::exists(scratch / "d.pt"));
}

// The agent file replaces an earlier one only: a file of the user's is refused before any
// episode runs.
TEST(TunePetrel, OutThatIsNotAnAgentFileIsRefusedBeforeTraining) {
  const ScratchDir scratch;
  const fs::path mine = scratch / "notes.txt";
  std::ofstream(mine) << "mine";
  const Outcome refused = run_hetps(with_tiny_job(
      {"tune", "petrel", "--episodes", "1", "--held-out", "1", "--out", mine.string()}));
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_THAT(refused.output, HasSubstr("hetps: --out " + mine.string() +
                                        ": the file exists and is not an agent file"));
  EXPECT_THAT(refused.output, Not(HasSubstr("[1/1]")));
  EXPECT_EQ(read_file(mine), "mine");

  // Nor is the evaluation written beside the agent file one of the user's.
  const fs::path agent = scratch / "agent.pt";
  const fs::path evaluation = scratch / "agent.pt.evaluation.json";
  std::ofstream(evaluation) << "mine";
  const Outcome beside = run_hetps(with_tiny_job(
      {"tune", "petrel", "--episodes", "1", "--held-out", "1", "--out", agent.string()}));
  EXPECT_EQ(beside.exit_code, 2) << beside.output;
  EXPECT_THAT(beside.output, HasSubstr("hetps: --out " + evaluation.string() +
                                       ": the file exists and is not an agent's evaluation file"));
  EXPECT_EQ(read_file(evaluation), "mine");
  EXPECT_FALSE(fs::exists(agent));
}

// Each episode draws its own cluster and writes no run directory: settings of those would do
// nothing.
TEST(TunePetrel, SettingsTheEpisodesDoNotUseAreRefused) {
  const ScratchDir scratch;
  for (const std::string set :
       {"cluster.speeds=[1, 0.5]", "cluster.link_gbps=[1]", "cluster.link_latency_ms=[1]",
        "run.name=mine", "run.checkpoint_interval=1", "run.timeline_intervals=10"}) {
    const Outcome given = run_hetps(
        {"tune", "petrel", "--episodes", "1", "--set", set, "--out", (scratch / "a.pt").string()});
    EXPECT_EQ(given.exit_code, 2) << given.output;
    EXPECT_THAT(given.output, HasSubstr("--set " + set + ": hetps tune petrel")) << set;
    EXPECT_THAT(given.output, HasSubstr("leave " + set.substr(0, set.find('=')) + " out"));
  }
  EXPECT_FALSE(fs::exists(scratch / "a.pt"));
}

// SIGINT ends the training after the episodes going on, with a message and no agent file.
TEST(TunePetrel, SigintStopsTheTrainingWritingNothing) {
  const ScratchDir scratch;
  const fs::path agent = scratch / "agent.pt";
  const fs::path output = scratch / "tune.out";
  const int status = testing::interrupt_when(
      with_tiny_job({"tune", "petrel", "--episodes", "100000", "--out", agent.string()}),
      [&] {
        std::ifstream in(output);
        const std::string text{std::istreambuf_iterator<char>(in), {}};
        return text.find("[1/100000]") != std::string::npos;
      },
      output);
  ASSERT_EQ(status, 130) << read_file(output);
  EXPECT_THAT(read_file(output), HasSubstr("hetps: stopped by SIGINT after "));
  EXPECT_THAT(read_file(output), HasSubstr(" of 100000 training episodes; no agent file was "
                                           "written"));
  EXPECT_FALSE(fs::exists(agent));
  EXPECT_TRUE(
      fs::is_empty(scratch.path()) ||
      std::all_of(fs::directory_iterator(scratch.path()), fs::directory_iterator(),
                  [&](const fs::directory_entry& entry) { return entry.path() == output; }));
}

// A new agent stopped during its comparison leaves no evaluation: the earlier agent's would
// describe another agent.
TEST(TunePetrel, ANewAgentStoppedBeforeItsEvaluationLeavesNoneOfAnEarlierOne) {
  const ScratchDir scratch;
  const fs::path agent = scratch / "agent.pt";
  const fs::path evaluation = agent.string() + ".evaluation.json";
  const Outcome first = run_hetps(with_tiny_job(
      {"tune", "petrel", "--episodes", "2", "--held-out", "1", "--out", agent.string()}));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  ASSERT_TRUE(fs::exists(evaluation));
  const std::string first_agent = read_file(agent);
  const fs::path output = scratch / "tune.out";
  const int status = testing::interrupt_when(
      with_tiny_job(
          {"tune", "petrel", "--episodes", "3", "--held-out", "1000", "--out", agent.string()}),
      [&] {
        std::ifstream in(output);
        const std::string text{std::istreambuf_iterator<char>(in), {}};
        return text.find("tiers") != std::string::npos;  // the comparison's table began
      },
      output);
  ASSERT_EQ(status, 130) << read_file(output);
  EXPECT_THAT(read_file(output), HasSubstr("its evaluation is not"));
  EXPECT_NE(read_file(agent), first_agent);
  EXPECT_FALSE(fs::exists(evaluation));
}

}  // namespace
}  // namespace hetps::cli
