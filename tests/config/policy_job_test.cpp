// The job a Sync-Switch policy was searched on, and the warning resolve gives when a run given
// the policy is another job.
#include "config/policy_job.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>

#include "config/switch_policy.h"
#include "config_test_util.h"

namespace hetps::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing::resolve_sets;
using testing::settings_from;

// A file named after the running test and `name`, removed when destroyed.
class TestFile {
 public:
  explicit TestFile(const std::string& name) {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::path(::testing::TempDir()) /
            (std::string(test->test_suite_name()) + "." + test->name() + "." + name);
  }
  ~TestFile() { std::filesystem::remove(path_); }
  std::string path() const { return path_.string(); }
  void write(const std::string& text) const { std::ofstream(path_) << text; }

 private:
  std::filesystem::path path_;
};

// A policy choosing x = 0.25, searched on the job `job` (none: a file written before the job
// was recorded).
class SearchedPolicy {
 public:
  explicit SearchedPolicy(const std::optional<Config>& job) : file_("policy.json") {
    SwitchPolicy policy;
    policy.chosen = 0.25;
    policy.candidates = {{0.5, 0.8, "runs/a"}, {0.25, 0.8, "runs/b"}};
    if (job) policy.job = job_settings(*job);
    write_switch_policy(file_.path(), policy);
  }

  // What resolving sync_switch given this policy and `sets` warns of.
  std::vector<std::string> warnings_for(std::initializer_list<std::string_view> sets) const {
    UserSettings settings = settings_from({"protocol.name=sync_switch"});
    settings.add_string("protocol.policy_file", file_.path(), "exp.toml:3");
    for (std::string_view set : sets) settings.add_set(set);
    std::vector<std::string> warnings;
    resolve(settings, {.warn = [&](const std::string& w) { warnings.push_back(w); }});
    return warnings;
  }
  std::string path() const { return file_.path(); }

 private:
  TestFile file_;
};

std::string default_value(const std::string& key) {
  return job_settings(resolve_sets({"protocol.name=sync_switch"})).at(key);
}

TEST(JobSettings, EveryTrainingSettingButWhatChangesOnlyBitsOrNothing) {
  const std::map<std::string, std::string> job =
      job_settings(resolve_sets({"protocol.name=sync_switch", "cluster.workers=6", "train.lr=0.05",
                                 "cluster.random_stragglers.rate_per_min=2"}));
  EXPECT_EQ(job.at("cluster.workers"), "6");
  EXPECT_EQ(job.at("train.lr"), "0.05");
  EXPECT_EQ(job.at("cluster.random_stragglers.rate_per_min"), "2.0");
  EXPECT_EQ(job.at("protocol.name"), "\"sync_switch\"");
  EXPECT_TRUE(job.contains("protocol.momentum_rule"));
  EXPECT_TRUE(job.contains("data.name"));
  EXPECT_TRUE(job.contains("train.stop_at_target"));
  for (const char* left_out :
       {"seed", "engine", "data.dir", "protocol.bsp_fraction", "protocol.policy_file",
        "run.checkpoint_interval", "run.threads_per_worker", "train.eval_interval",
        "train.target_accuracy"}) {
    EXPECT_FALSE(job.contains(left_out)) << left_out;
  }
  EXPECT_EQ(
      job,
      job_settings(resolve_sets({"protocol.name=sync_switch", "cluster.workers=6", "train.lr=0.05",
                                 "cluster.random_stragglers.rate_per_min=2", "seed=9",
                                 "engine=threads", "run.name=other", "run.checkpoint_interval=3",
                                 "data.dir=elsewhere", "protocol.bsp_fraction=0.5",
                                 "train.eval_interval=0.5", "train.target_accuracy=0.5"})));
}

TEST(JobSettings, APerWorkerListIsComparedAsItIsCycled) {
  const auto job_of = [](std::initializer_list<std::string_view> sets) {
    return job_settings(resolve_sets(sets));
  };
  EXPECT_EQ(job_of({"cluster.workers=4", "cluster.speeds=[1, 0.5]", "cluster.link_gbps=[10]"}),
            job_of({"cluster.workers=4", "cluster.speeds=[1, 0.5, 1, 0.5]",
                    "cluster.link_gbps=[10, 10, 10, 10]"}));
  EXPECT_EQ(job_of({"cluster.workers=3", "cluster.speeds=[1, 0.5]"}).at("cluster.speeds"),
            "[1.0, 0.5, 1.0]");
  EXPECT_NE(job_of({"cluster.workers=4", "cluster.speeds=[1, 0.5]"}),
            job_of({"cluster.workers=4", "cluster.speeds=[1, 1, 0.5, 0.5]"}));
}

TEST(JobSettings, TheTargetCountsWhereTheRunStopsThere) {
  EXPECT_EQ(job_settings(resolve_sets({"protocol.name=sync_switch", "train.stop_at_target=true",
                                       "train.target_accuracy=0.5"}))
                .at("train.target_accuracy"),
            "0.5");
}

// A data set of one's own is whatever its folder holds: the folder is part of the job.
TEST(JobSettings, TheFolderOfADataSetOfOnesOwnIsPartOfTheJob) {
  const auto job_of = [](const char* dir) {
    return job_settings(resolve_sets({"protocol.name=sync_switch", "data.name=idx", dir}));
  };
  EXPECT_EQ(job_of("data.dir=mine").at("data.dir"), "\"mine\"");
  EXPECT_NE(job_of("data.dir=mine"), job_of("data.dir=theirs"));
}

TEST(JobSettings, ATraceIsItsFileNotItsPath) {
  const TestFile trace("trace.csv");
  trace.write("time,worker,speed\n0,0,0.5\n");
  const auto job_with_trace = [](const std::string& path) {
    return job_settings(resolve_sets({"protocol.name=sync_switch", "cluster.workers=2",
                                      ("cluster.trace=\"" + path + "\"").c_str()}));
  };
  const std::map<std::string, std::string> job = job_with_trace(trace.path());
  EXPECT_THAT(job.at("cluster.trace"), HasSubstr("file with FNV-1a "));
  const std::filesystem::path path = trace.path();
  EXPECT_EQ(job_with_trace((path.parent_path() / "." / path.filename()).string()), job);
  trace.write("time,worker,speed\n0,0,0.25\n");
  EXPECT_NE(job_with_trace(trace.path()), job);
}

TEST(AnotherJobWarning, NamesEachSettingThatDiffers) {
  const SearchedPolicy policy(resolve_sets({"protocol.name=sync_switch", "train.lr=0.2"}));
  EXPECT_THAT(policy.warnings_for({"train.lr=0.05", "train.momentum=0.5"}),
              ElementsAre("protocol.policy_file " + policy.path() +
                          " was searched on another job than this run's, so its x = 0.25 is not "
                          "known to hold here: train.lr = 0.2 there, 0.05 here; train.momentum = " +
                          default_value("train.momentum") +
                          " there, 0.5 here; search this job's x with `hetps tune sync-switch`"));
}

TEST(AnotherJobWarning, NoneForTheSameJobOnAnotherSeedEngineOrEvaluationGrid) {
  const SearchedPolicy policy(
      resolve_sets({"protocol.name=sync_switch", "train.lr=0.2", "seed=101"}));
  EXPECT_THAT(policy.warnings_for({"train.lr=0.2", "seed=1", "engine=threads",
                                   "train.eval_interval=0.5", "run.threads_per_worker=2"}),
              IsEmpty());
}

TEST(AnotherJobWarning, TheSimulatorsOwnSettingsCountOnTheSimulatorOnly) {
  const SearchedPolicy policy(
      resolve_sets({"protocol.name=sync_switch", "cluster.switch_overhead_pulls=4",
                    "cluster.compute_noise=0.5"}));
  // Refused on threads, where it would do nothing: the run cannot match it, and needs not.
  EXPECT_THAT(policy.warnings_for({"engine=threads"}), IsEmpty());
  const std::vector<std::string> on_sim = policy.warnings_for({});
  ASSERT_EQ(on_sim.size(), 1U);
  EXPECT_THAT(on_sim[0], HasSubstr("cluster.compute_noise = 0.5 there, "));
  EXPECT_THAT(on_sim[0], HasSubstr("cluster.switch_overhead_pulls = 4.0 there, "));
}

TEST(AnotherJobWarning, ALongValueIsCutAndAValueMissingOnOneSideIsNamed) {
  const SearchedPolicy policy(resolve_sets({"protocol.name=sync_switch", "cluster.workers=16"}));
  const std::vector<std::string> warnings = policy.warnings_for({"cluster.workers=17"});
  ASSERT_EQ(warnings.size(), 1U);
  // Sixteen speeds and seventeen, each cut to its first 44 characters.
  const std::string speeds =
      job_settings(resolve_sets({"cluster.workers=16"})).at("cluster.speeds");
  EXPECT_THAT(warnings[0], HasSubstr("cluster.speeds = " + speeds.substr(0, 44) + " ... there, "));
  EXPECT_THAT(warnings[0], HasSubstr("cluster.workers = 16 there, 17 here"));

  SwitchPolicy edited = read_switch_policy(policy.path());
  edited.job.erase("train.lr");
  edited.job["train.retired_setting"] = "1";
  write_switch_policy(policy.path(), edited);
  // Missing there, a setting is its built-in default there.
  EXPECT_THAT(policy.warnings_for({"cluster.workers=16", "train.lr=0.2"}),
              ElementsAre(HasSubstr("train.lr = not set there, 0.2 here; train.retired_setting = "
                                    "1 there, not set here;")));
}

// A file written before a setting existed was searched with its built-in default.
TEST(AnotherJobWarning, ASettingAddedSinceTheFileCountsAsItsDefaultThere) {
  const SearchedPolicy policy(resolve_sets({"protocol.name=sync_switch"}));
  SwitchPolicy older = read_switch_policy(policy.path());
  ASSERT_EQ(older.job.erase("data.classes"), 1U);
  write_switch_policy(policy.path(), older);
  EXPECT_THAT(policy.warnings_for({}), IsEmpty());
  EXPECT_THAT(policy.warnings_for({"data.name=idx", "data.classes=3"}),
              ElementsAre(HasSubstr("data.classes = not set there, 3 here")));
}

TEST(AnotherJobWarning, NamesTheFirstEightDifferencesAndCountsTheRest) {
  const SearchedPolicy policy(resolve_sets({"protocol.name=sync_switch"}));
  const std::vector<std::string> warnings =
      policy.warnings_for({"train.lr=0.011", "train.momentum=0.12", "train.weight_decay=0.013",
                           "train.max_samples=1400", "data.batch_size=15", "protocol.ramp_steps=16",
                           "protocol.online=\"greedy\"", "protocol.budget_steps=18",
                           "protocol.lr_rule=\"keep\"", "protocol.momentum_rule=\"multistep\""});
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_THAT(warnings[0], HasSubstr("; and 2 more; search this job's x"));
  EXPECT_EQ(std::count(warnings[0].begin(), warnings[0].end(), ';'), 9)
      << "eight differences, the count of the rest, and the advice";
}

TEST(AnotherJobWarning, NoneWithoutAPolicyOrWithoutAJobRecorded) {
  const SearchedPolicy unrecorded(std::nullopt);
  EXPECT_THAT(unrecorded.warnings_for({"train.lr=0.05"}), IsEmpty());
  std::vector<std::string> warnings;
  resolve(settings_from({"protocol.name=sync_switch", "train.lr=0.05"}),
          {.warn = [&](const std::string& w) { warnings.push_back(w); }});
  EXPECT_THAT(warnings, IsEmpty());
}

}  // namespace
}  // namespace hetps::config
