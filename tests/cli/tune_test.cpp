// `hetps tune sync-switch` on a tiny synthetic job, and `train` with the policy file it writes.
// With --tolerance 1 every candidate holds, so the search makes five short runs (BSP, 0.5, 0.25,
// 0.125, 0.0625) and chooses the last.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/hetps_process.h"
#include "config/switch_policy.h"

namespace hetps::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::Outcome;
using testing::read_file;
using testing::run_hetps;
using testing::ScratchDir;
using testing::tiny_run;

nlohmann::json read_json(const fs::path& file) { return nlohmann::json::parse(read_file(file)); }

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// The search of the tiny job, its runs and policy file under `scratch`.
std::vector<std::string> search_args(const ScratchDir& scratch) {
  return tiny_run(
      {"tune", "sync-switch", "--runs", (scratch / "runs").string(), "--tolerance", "1"});
}

fs::path policy_file(const ScratchDir& scratch) { return scratch / "runs" / "policy.json"; }

// `train` of the tuned job with `sets` added.
std::vector<std::string> train_args(const fs::path& out, const std::vector<std::string>& sets) {
  std::vector<std::string> args = {"train",      "--quiet", "--out",
                                   out.string(), "--set",   "protocol.name=sync_switch"};
  for (const std::string& set : sets) {
    args.push_back("--set");
    args.push_back(set);
  }
  return tiny_run(args);
}

TEST(Tune, PolicyHoldsBspAccuracyAndEveryCandidateAndASecondSearchRerunsNothing) {
  const ScratchDir scratch;
  const Outcome search = run_hetps(search_args(scratch));
  ASSERT_EQ(search.exit_code, 0) << search.output;
  const nlohmann::json policy = read_json(policy_file(scratch));
  EXPECT_EQ(policy.at("format"), "hetps-sync-switch-policy");
  EXPECT_EQ(policy.at("chosen"), 0.0625);
  EXPECT_EQ(policy.at("tolerance"), 1.0);
  EXPECT_EQ(policy.at("seed"), 1);
  EXPECT_EQ(policy.at("bsp_accuracy"),
            read_json(fs::path(policy.at("bsp_run")) / "summary.json").at("final_accuracy"));
  EXPECT_THAT(read_file(fs::path(policy.at("bsp_run")) / "config.toml"),
              HasSubstr("\nbsp_fraction = 1\n"));

  const std::vector<double> tried = {0.5, 0.25, 0.125, 0.0625};
  ASSERT_EQ(policy.at("candidates").size(), tried.size());
  for (size_t i = 0; i < tried.size(); ++i) {
    const nlohmann::json& candidate = policy.at("candidates").at(i);
    const fs::path run = candidate.at("run").get<std::string>();
    EXPECT_EQ(candidate.at("bsp_fraction"), tried[i]);
    EXPECT_EQ(candidate.at("accuracy"), read_json(run / "summary.json").at("final_accuracy"));
    EXPECT_THAT(read_file(run / "config.toml"),
                HasSubstr(fmt::format("\nbsp_fraction = {}\n", tried[i])));
    EXPECT_EQ(run.parent_path(), scratch / "runs");
    EXPECT_EQ(run.filename().string().size(), 16u) << "named by a 64-bit hash";
  }
  EXPECT_EQ(fs::path(policy.at("candidates").at(3).at("run")).filename().string(),
            policy.at("config_hash").get<std::string>());

  EXPECT_THAT(search.output, HasSubstr("[1 of at most 6] x = 1 (BSP): final accuracy "));
  EXPECT_THAT(search.output, HasSubstr("[5 of at most 6] x = 0.0625: final accuracy "));
  EXPECT_THAT(search.output, HasSubstr("chosen x = 0.0625: the smallest within 1 of BSP's"));
  EXPECT_THAT(search.output, HasSubstr("policy file: " + policy_file(scratch).string()));
  EXPECT_EQ(count(search.output, "cached"), 0u) << search.output;

  const std::string first_policy = read_file(policy_file(scratch));
  const Outcome again = run_hetps(search_args(scratch));
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(count(again.output, ": cached, final accuracy "), 5u) << again.output;
  EXPECT_EQ(count(again.output, ": final accuracy "), 0u) << again.output;
  EXPECT_EQ(read_file(policy_file(scratch)), first_policy);
}

TEST(Tune, TrainWithThePolicyRepeatsTheChosenRun) {
  const ScratchDir scratch;
  const Outcome search = run_hetps(search_args(scratch));
  ASSERT_EQ(search.exit_code, 0) << search.output;
  const Outcome train = run_hetps(
      train_args(scratch / "train", {"protocol.policy_file=" + policy_file(scratch).string()}));
  ASSERT_EQ(train.exit_code, 0) << train.output;
  const fs::path chosen = read_json(policy_file(scratch)).at("candidates").at(3).at("run");
  // The log has no wall-clock field (metrics/records.h), so the runs agree byte for byte; the
  // resolved configs too, since the policy file becomes bsp_fraction.
  EXPECT_EQ(read_file(scratch / "train" / "log.jsonl"), read_file(chosen / "log.jsonl"));
  EXPECT_EQ(read_file(scratch / "train" / "config.toml"), read_file(chosen / "config.toml"));
  EXPECT_THAT(train.output, Not(HasSubstr("warning"))) << "the job the policy was searched on";
}

TEST(Tune, TrainWithThePolicyOfAnotherJobNamesWhatDiffers) {
  const ScratchDir scratch;
  const Outcome search = run_hetps(search_args(scratch));
  ASSERT_EQ(search.exit_code, 0) << search.output;
  const std::string policy = "protocol.policy_file=" + policy_file(scratch).string();
  // Another seed, name and checkpoint interval: the same job, as the search runs on seeds of its
  // own.
  const Outcome same_job = run_hetps(train_args(
      scratch / "same", {policy, "seed=2", "run.name=again", "run.checkpoint_interval=0.5"}));
  ASSERT_EQ(same_job.exit_code, 0) << same_job.output;
  EXPECT_THAT(same_job.output, Not(HasSubstr("warning")));

  const Outcome other_job = run_hetps(train_args(scratch / "other", {policy, "train.lr=0.0123"}));
  ASSERT_EQ(other_job.exit_code, 0) << other_job.output << "the policy's x is still applied";
  const std::string searched_lr =
      read_json(policy_file(scratch)).at("job").at("train.lr").get<std::string>();
  EXPECT_THAT(other_job.output,
              HasSubstr(fmt::format("hetps: warning: protocol.policy_file {} was searched on "
                                    "another job than this run's, so its x = 0.0625 is not known "
                                    "to hold here: train.lr = {} there, 0.0123 here; search this "
                                    "job's x with `hetps tune sync-switch`",
                                    policy_file(scratch).string(), searched_lr)));
  EXPECT_THAT(read_file(scratch / "other" / "config.toml"), HasSubstr("\nbsp_fraction = 0.0625\n"));
}

// A policy choosing x = 0.25, written as tune writes it.
fs::path written_policy(const ScratchDir& scratch) {
  config::SwitchPolicy policy;
  policy.chosen = 0.25;
  policy.candidates = {{0.5, 0.8, "runs/a"}, {0.25, 0.8, "runs/b"}};
  const fs::path file = scratch / "policy.json";
  config::write_switch_policy(file, policy);
  return file;
}

TEST(TuneInput, PolicyFileWithBspFractionIsRefused) {
  const ScratchDir scratch;
  const std::string policy_set = "protocol.policy_file=" + written_policy(scratch).string();
  const Outcome refused =
      run_hetps(train_args(scratch / "run", {policy_set, "protocol.bsp_fraction=0.5"}));
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_THAT(refused.output,
              HasSubstr("hetps: --set protocol.bsp_fraction=0.5: protocol.bsp_fraction and "
                        "protocol.policy_file (given at --set " +
                        policy_set + ") both set Sync-Switch's switch point"));
  EXPECT_FALSE(fs::exists(scratch / "run"));
}

TEST(TuneInput, BadPolicyFilesAreNamed) {
  const ScratchDir scratch;
  const fs::path missing = scratch / "missing.json";
  const Outcome no_file = run_hetps(
      tiny_run({"train", "--set", "protocol.name=sync_switch", "--set",
                "protocol.policy_file=" + missing.string(), "--out", (scratch / "a").string()}));
  EXPECT_EQ(no_file.exit_code, 2) << no_file.output;
  EXPECT_THAT(no_file.output, HasSubstr("cannot read policy file " + missing.string()));

  const fs::path wrong = scratch / "wrong.json";
  std::ofstream(wrong) << R"({"format": "something-else", "version": 1})";
  const Outcome bad = run_hetps(
      tiny_run({"train", "--set", "protocol.name=sync_switch", "--set",
                "protocol.policy_file=" + wrong.string(), "--out", (scratch / "b").string()}));
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_THAT(bad.output,
              HasSubstr(wrong.string() + ": format must be \"hetps-sync-switch-policy\", got "
                                         "\"something-else\""));
}

TEST(TuneInput, MpiEngineIsRefusedBeforeAnyRun) {
  const ScratchDir scratch;
  const Outcome refused = run_hetps(tiny_run(
      {"tune", "sync-switch", "--runs", (scratch / "runs").string(), "--set", "engine=mpi"}));
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_THAT(refused.output, HasSubstr("hetps: engine = \"mpi\": hetps tune runs its candidates"));
  EXPECT_FALSE(fs::exists(scratch / "runs"));
}

// 100 BSP rounds: S = 140 switches at x = 0.5 (70 rounds) but not at 0.75 (105), which the
// search tries when 0.5 falls short, after BSP's run.
TEST(TuneInput, ABudgetALargerCandidateWouldRefuseIsRefusedBeforeAnyRun) {
  const ScratchDir scratch;
  const Outcome refused =
      run_hetps(tiny_run({"tune", "sync-switch", "--runs", (scratch / "runs").string(), "--set",
                          "cluster.workers=4", "--set", "data.batch_size=10", "--set",
                          "train.max_samples=4000", "--set", "protocol.budget_steps=140"}));
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_THAT(refused.output,
              HasSubstr("round(0.75 x 140) = 105 BSP rounds, but the run's budget is 100"));
  EXPECT_THAT(refused.output,
              HasSubstr("(hetps tune sync-switch tries protocol.bsp_fraction up to 0.75)"));
  EXPECT_FALSE(fs::exists(scratch / "runs"));
}

// The policy file replaces an earlier one only: a file of the user's, or a directory, named by
// --out is refused before any candidate runs.
TEST(TuneInput, OutThatIsNotAPolicyFileIsRefusedBeforeAnyRun) {
  const ScratchDir scratch;
  const fs::path mine = scratch / "notes.txt";
  std::ofstream(mine) << "mine";
  std::vector<std::string> args = search_args(scratch);
  args.insert(args.end(), {"--out", mine.string()});
  const Outcome refused = run_hetps(args);
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_THAT(refused.output, HasSubstr("hetps: --out " + mine.string() +
                                        ": the file exists and is not a policy file; remove it "
                                        "yourself or choose another --out"));
  EXPECT_EQ(read_file(mine), "mine");
  EXPECT_FALSE(fs::exists(scratch / "runs"));

  args.back() = scratch.path().string();
  const Outcome on_directory = run_hetps(args);
  EXPECT_EQ(on_directory.exit_code, 2) << on_directory.output;
  EXPECT_THAT(on_directory.output, HasSubstr("hetps: --out " + scratch.path().string() +
                                             ": a directory; expected the name of a policy file"));
}

// Where the policy file cannot be written, that is said before any candidate runs, not after
// the search. (Root may write anywhere a mode bit forbids: /proc refuses everyone.)
TEST(TuneInput, OutWhereNoFileCanBeWrittenIsRefusedBeforeAnyRun) {
  const ScratchDir scratch;
  std::vector<std::string> args = search_args(scratch);
  args.insert(args.end(), {"--out", "/proc/policy.json"});
  const Outcome in_proc = run_hetps(args);
  EXPECT_EQ(in_proc.exit_code, 2) << in_proc.output;
  EXPECT_THAT(in_proc.output, HasSubstr("hetps: --out /proc/policy.json: cannot write a policy "
                                        "file there: no file can be created in /proc ("));

  const fs::path mine = scratch / "notes.txt";
  std::ofstream(mine) << "mine";
  args.back() = (mine / "policy.json").string();
  const Outcome under_a_file = run_hetps(args);
  EXPECT_EQ(under_a_file.exit_code, 2) << under_a_file.output;
  EXPECT_THAT(under_a_file.output, HasSubstr("cannot write a policy file there: " + mine.string() +
                                             " is not a directory"));
  EXPECT_FALSE(fs::exists(scratch / "runs"));
}

// What the search sets itself, and checkpoints its runs do not take, are refused where a config
// or --set gives them, before any run.
TEST(TuneInput, SettingsTheSearchMakesAreRefused) {
  const ScratchDir scratch;
  std::vector<std::string> args = search_args(scratch);
  args.insert(args.end(), {"--set", "protocol.bsp_fraction=0.5"});
  const Outcome fraction = run_hetps(args);
  EXPECT_EQ(fraction.exit_code, 2) << fraction.output;
  EXPECT_THAT(fraction.output, HasSubstr("hetps: --set protocol.bsp_fraction=0.5: hetps tune "
                                         "sync-switch searches protocol.bsp_fraction"));
  args.back() = "protocol.name=bsp";
  const Outcome name = run_hetps(args);
  EXPECT_EQ(name.exit_code, 2) << name.output;
  EXPECT_THAT(name.output, HasSubstr("hetps: --set protocol.name=bsp: hetps tune sync-switch "
                                     "runs protocol sync_switch"));
  args.back() = "protocol.policy_file=mine.json";
  const Outcome policy = run_hetps(args);
  EXPECT_EQ(policy.exit_code, 2) << policy.output;
  EXPECT_THAT(policy.output, HasSubstr("hetps: --set protocol.policy_file=mine.json: hetps tune "
                                       "sync-switch writes the policy file"));
  args.back() = "run.checkpoint_interval=1";
  const Outcome checkpoints = run_hetps(args);
  EXPECT_EQ(checkpoints.exit_code, 2) << checkpoints.output;
  EXPECT_THAT(checkpoints.output,
              HasSubstr("hetps: run.checkpoint_interval: this run takes no checkpoints"));
  EXPECT_FALSE(fs::exists(scratch / "runs"));
}

// SIGINT stops the search: the run going on is discarded with its staging directory, so that
// --runs holds finished runs only, which the same command reuses (the cache test above).
TEST(Tune, SigintStopsTheSearchLeavingNoUnfinishedRun) {
  const ScratchDir scratch;
  const fs::path runs = scratch / "runs";
  std::vector<std::string> endless = search_args(scratch);
  endless.insert(endless.end(), {"--set", "train.max_samples=1000000000"});
  const auto a_run_started = [&] {
    std::error_code none_yet;
    return fs::directory_iterator(runs, none_yet) != fs::directory_iterator();
  };
  const int status = testing::interrupt_when(endless, a_run_started, scratch / "tune.out");
  ASSERT_EQ(status, 130) << read_file(scratch / "tune.out");
  EXPECT_THAT(read_file(scratch / "tune.out"),
              HasSubstr("hetps: stopped by SIGINT; the run that was going on is discarded, the "
                        "candidates that finished stay in " +
                        runs.string() + " and the same command goes on from them\n"));
  EXPECT_TRUE(fs::is_empty(runs));
}

// A cached run is one of the same config and the same input files: after the trace the
// config names changed, every candidate runs again.
TEST(Tune, ACachedRunIsReusedOnlyWithTheSameInputFiles) {
  const ScratchDir scratch;
  const fs::path trace = scratch / "trace.csv";
  std::ofstream(trace) << "time,worker,speed\n0,0,1\n0,1,0.5\n";
  std::vector<std::string> args = search_args(scratch);
  args.insert(args.end(), {"--set", "cluster.trace=" + trace.string()});
  const Outcome first = run_hetps(args);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const size_t runs = count(first.output, ": final accuracy");
  const Outcome same = run_hetps(args);
  ASSERT_EQ(same.exit_code, 0) << same.output;
  EXPECT_EQ(count(same.output, ": cached, final accuracy"), runs) << same.output;
  std::ofstream(trace) << "time,worker,speed\n0,0,0.5\n0,1,1\n";
  const Outcome changed = run_hetps(args);
  ASSERT_EQ(changed.exit_code, 0) << changed.output;
  EXPECT_EQ(count(changed.output, ": cached, final accuracy"), 0u) << changed.output;
  EXPECT_EQ(count(changed.output, ": final accuracy"), runs) << changed.output;
}

// A cached run is found by its directory's name; one whose config.toml is not that name's
// config (edited, or another run copied there) would give the search another run's accuracy.
TEST(Tune, ACachedRunWhoseConfigIsNotItsNameIsRefused) {
  const ScratchDir scratch;
  const Outcome first = run_hetps(search_args(scratch));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const fs::path bsp_config =
      fs::path(read_json(policy_file(scratch)).at("bsp_run").get<std::string>()) / "config.toml";
  const std::string original = read_file(bsp_config);
  std::string text = original;
  text.replace(text.find("seed = "), 7, "seed = 9");
  std::ofstream(bsp_config) << text;
  const Outcome second = run_hetps(search_args(scratch));
  EXPECT_EQ(second.exit_code, 2) << second.output;
  EXPECT_THAT(second.output,
              HasSubstr("hetps: " + bsp_config.string() +
                        ": missing, or not the config this run's directory is named for"));

  // A summary cut short is named too, as input to remove rather than a failed run.
  std::ofstream(bsp_config) << original;
  const fs::path bsp_summary = bsp_config.parent_path() / "summary.json";
  fs::resize_file(bsp_summary, fs::file_size(bsp_summary) / 2);
  const Outcome third = run_hetps(search_args(scratch));
  EXPECT_EQ(third.exit_code, 2) << third.output;
  EXPECT_THAT(third.output,
              HasSubstr("hetps: " + bsp_summary.string() + ": not a hetps run summary ("));
}

// --runs names a directory; the error names --runs, not --out.
TEST(TuneInput, RunsThatIsAFileIsNamed) {
  const ScratchDir scratch;
  const fs::path file = scratch / "runs";
  std::ofstream(file) << "mine";
  const Outcome refused = run_hetps(search_args(scratch));
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_THAT(refused.output, HasSubstr("hetps: --runs " + file.string() +
                                        "/policy.json: cannot "
                                        "write a policy file there: " +
                                        file.string() + " is not a directory"));
  EXPECT_EQ(read_file(file), "mine");
}

TEST(TuneInput, ToleranceOutsideZeroToOneIsRefused) {
  const Outcome refused = run_hetps({"tune", "sync-switch", "--tolerance", "2"});
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_THAT(refused.output, HasSubstr("--tolerance"));
  const Outcome not_a_number = run_hetps({"tune", "sync-switch", "--tolerance", "nan"});
  EXPECT_EQ(not_a_number.exit_code, 2) << not_a_number.output;
  EXPECT_THAT(not_a_number.output,
              HasSubstr("--tolerance: expected a number from 0 to 1, got \"nan\""));
  const Outcome a_word = run_hetps({"tune", "sync-switch", "--tolerance", "abc"});
  EXPECT_EQ(a_word.exit_code, 2) << a_word.output;
  EXPECT_THAT(a_word.output, HasSubstr("--tolerance: expected a number from 0 to 1, got \"abc\""));
}

}  // namespace
}  // namespace hetps::cli
