// The job a Sync-Switch policy was searched on, and the warning when a run given the policy is
// another job.
#include "config/policy_job.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>

#include "config/switch_policy.h"
#include "config_test_util.h"

namespace hetps::config {
namespace {

using ::testing::HasSubstr;
using ::testing::Optional;
using testing::resolve_sets;
using testing::settings_from;

// A policy choosing x = 0.25, searched on the job `job` (none: a file written before the job
// was recorded), written to a file named after the running test.
class SearchedPolicy {
 public:
  explicit SearchedPolicy(const std::optional<Config>& job) {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::path(::testing::TempDir()) /
            (std::string(test->test_suite_name()) + "." + test->name() + ".json");
    SwitchPolicy policy;
    policy.chosen = 0.25;
    if (job) policy.job = job_settings(*job);
    write_switch_policy(path_, policy);
  }
  ~SearchedPolicy() { std::filesystem::remove(path_); }

  // What a run of sync_switch given this policy and `sets` is warned of.
  std::optional<std::string> warning_for(std::initializer_list<std::string_view> sets) const {
    UserSettings settings = settings_from({"protocol.name=sync_switch"});
    settings.add_string("protocol.policy_file", path_.string(), "exp.toml:3");
    for (std::string_view set : sets) settings.add_set(set);
    return policy_of_another_job(settings, resolve(settings));
  }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

TEST(JobSettings, EveryTrainingSettingButTheSeedEngineRunAndSwitchPoint) {
  const std::map<std::string, std::string> job =
      job_settings(resolve_sets({"protocol.name=sync_switch", "cluster.workers=6", "train.lr=0.05",
                                 "cluster.random_stragglers.rate_per_min=2"}));
  EXPECT_EQ(job.at("cluster.workers"), "6");
  EXPECT_EQ(job.at("train.lr"), "0.05");
  EXPECT_EQ(job.at("cluster.random_stragglers.rate_per_min"), "2.0");
  EXPECT_EQ(job.at("protocol.name"), "\"sync_switch\"");
  EXPECT_TRUE(job.contains("protocol.momentum_rule"));
  EXPECT_TRUE(job.contains("data.name"));
  for (const char* left_out : {"seed", "engine", "data.dir", "protocol.bsp_fraction",
                               "protocol.policy_file", "run.checkpoint_interval"}) {
    EXPECT_FALSE(job.contains(left_out)) << left_out;
  }
  EXPECT_EQ(
      job,
      job_settings(resolve_sets({"protocol.name=sync_switch", "cluster.workers=6", "train.lr=0.05",
                                 "cluster.random_stragglers.rate_per_min=2", "seed=9",
                                 "engine=threads", "run.name=other", "run.checkpoint_interval=3",
                                 "data.dir=elsewhere", "protocol.bsp_fraction=0.5"})));
}

TEST(PolicyOfAnotherJob, NamesEachSettingThatDiffers) {
  const SearchedPolicy policy(resolve_sets({"protocol.name=sync_switch", "train.lr=0.2"}));
  EXPECT_EQ(policy.warning_for({"train.lr=0.05", "train.momentum=0.5"}),
            "protocol.policy_file " + policy.path() +
                " was searched on another job than this run's, so its x = 0.25 is not known to "
                "hold here: train.lr = 0.2 there, 0.05 here; train.momentum = " +
                job_settings(resolve_sets({"protocol.name=sync_switch"})).at("train.momentum") +
                " there, 0.5 here; search this job's x with `hetps tune sync-switch`");
}

TEST(PolicyOfAnotherJob, ALongValueIsCutAndAValueMissingOnOneSideIsNamed) {
  const SearchedPolicy policy(resolve_sets({"protocol.name=sync_switch", "cluster.workers=16"}));
  const std::optional<std::string> warning = policy.warning_for({"cluster.workers=17"});
  ASSERT_TRUE(warning.has_value());
  // Sixteen speeds and seventeen, each cut to its first 44 characters.
  const std::string speeds =
      job_settings(resolve_sets({"cluster.workers=16"})).at("cluster.speeds");
  EXPECT_THAT(*warning, HasSubstr("cluster.speeds = " + speeds.substr(0, 44) + " ... there, "));
  EXPECT_THAT(*warning, HasSubstr("cluster.workers = 16 there, 17 here"));

  const std::filesystem::path file = policy.path();
  SwitchPolicy edited = read_switch_policy(file);
  edited.job.erase("train.lr");
  edited.job["train.retired_setting"] = "1";
  write_switch_policy(file, edited);
  const std::string lr = job_settings(resolve_sets({"protocol.name=sync_switch"})).at("train.lr");
  EXPECT_THAT(policy.warning_for({"cluster.workers=16"}),
              Optional(HasSubstr("train.lr = not set there, " + lr +
                                 " here; train.retired_setting = 1 there, not set here;")));
}

TEST(PolicyOfAnotherJob, NoWarningForTheSameJobOnAnotherSeedOrEngine) {
  const SearchedPolicy policy(
      resolve_sets({"protocol.name=sync_switch", "train.lr=0.2", "seed=101"}));
  EXPECT_EQ(policy.warning_for({"train.lr=0.2", "seed=1", "engine=threads"}), std::nullopt);
}

TEST(PolicyOfAnotherJob, NoWarningWithoutAPolicyOrWithoutAJobRecorded) {
  const SearchedPolicy unrecorded(std::nullopt);
  EXPECT_EQ(unrecorded.warning_for({"train.lr=0.05"}), std::nullopt);
  const UserSettings no_policy = settings_from({"protocol.name=sync_switch", "train.lr=0.05"});
  EXPECT_EQ(policy_of_another_job(no_policy, resolve(no_policy)), std::nullopt);
}

}  // namespace
}  // namespace hetps::config
