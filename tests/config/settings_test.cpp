// `--set KEY=VALUE`: VALUE is TOML (numbers, arrays, inline tables, quoted strings) or else a
// bare word taken as a string.
#include <gtest/gtest.h>

#include "config_test_util.h"

namespace hetps::config {
namespace {

using testing::resolve_sets;

TEST(SetFlag, ReadsTomlNumbersBooleansAndArrays) {
  const Config config = resolve_sets(
      {"train.lr=0.25", "cluster.workers=2", "train.nesterov=true", "cluster.speeds=[1.0,0.5]"});
  EXPECT_EQ(config.train.lr, 0.25);
  EXPECT_EQ(config.cluster.workers, 2);
  EXPECT_TRUE(config.train.nesterov);
  EXPECT_EQ(config.cluster.speeds, (std::vector<double>{1.0, 0.5}));
}

TEST(SetFlag, AcceptsAnIntegerWhereANumberIsExpected) {
  const Config config = resolve_sets({"train.lr=1", "cluster.speeds=[2, 1]"});
  EXPECT_EQ(config.train.lr, 1.0);
  EXPECT_EQ(config.cluster.speeds, (std::vector<double>{2.0, 1.0}));
}

TEST(SetFlag, TakesBareWordsAsStrings) {
  const Config config = resolve_sets(
      {"protocol.name=ssp", "data.name=fashion-mnist", "data.dir=/tmp/my data", "run.name=a=b"});
  EXPECT_EQ(config.protocol.name, "ssp");
  EXPECT_EQ(config.data.name, "fashion-mnist");
  EXPECT_EQ(config.data.dir, "/tmp/my data");
  EXPECT_EQ(config.run.name, "a=b");
}

TEST(SetFlag, QuotedStringsAreTomlStrings) {
  EXPECT_EQ(resolve_sets({"run.name=\"2024\""}).run.name, "2024");
}

TEST(SetFlag, InlineTableSetsOnlyTheKeysItNames) {
  const Config config =
      resolve_sets({"cluster.random_stragglers={rate_per_min=2, mean_duration=3}"});
  EXPECT_EQ(config.cluster.random_stragglers.rate_per_min, 2.0);
  EXPECT_EQ(config.cluster.random_stragglers.mean_duration, 3.0);
  EXPECT_EQ(config.cluster.random_stragglers.slowdown_max, RandomStragglers{}.slowdown_max);
}

TEST(SetFlag, StragglersAreAnArrayOfTables) {
  const Config config =
      resolve_sets({"cluster.stragglers=[{worker=1,start=10,duration=5,slowdown=3}, "
                    "{worker=0,start=0.5,duration=1,slowdown=2}]"});
  ASSERT_EQ(config.cluster.stragglers.size(), 2u);
  EXPECT_EQ(config.cluster.stragglers[0], (StragglerEpisode{1, 10, 5, 3}));
  EXPECT_EQ(config.cluster.stragglers[1], (StragglerEpisode{0, 0.5, 1, 2}));
}

TEST(SetFlag, FailuresAreAnArrayOfTablesThatCrashUnlessToldToHang) {
  const Config config =
      resolve_sets({"cluster.failures=[{worker=3,time=12.5}, {worker=0,time=0,kind=\"hang\"}]"});
  ASSERT_EQ(config.cluster.failures.size(), 2u);
  EXPECT_EQ(config.cluster.failures[0], (WorkerFailure{3, 12.5, "crash"}));
  EXPECT_EQ(config.cluster.failures[1], (WorkerFailure{0, 0, "hang"}));
}

TEST(SetFlag, ShardFailuresAreAnArrayOfTables) {
  const Config config = resolve_sets({"cluster.servers=3",
                                      "cluster.shard_failures=[{shard=2,time=1.5}, "
                                      "{shard=0,time=0}]"});
  ASSERT_EQ(config.cluster.shard_failures.size(), 2u);
  EXPECT_EQ(config.cluster.shard_failures[0], (ShardFailure{2, 1.5}));
  EXPECT_EQ(config.cluster.shard_failures[1], (ShardFailure{0, 0}));
  EXPECT_TRUE(resolve_sets({}).cluster.shard_failures.empty());
}

TEST(SetFlag, RunLimitsHaveTheirDefaults) {
  const Config defaults = resolve_sets({});
  EXPECT_EQ(defaults.run.threads_per_worker, 1);
  EXPECT_EQ(defaults.run.stall_warning_s, 10.0);
  EXPECT_EQ(defaults.run.stall_timeout_s, 120.0);
  EXPECT_TRUE(defaults.cluster.failures.empty());
  const Config set = resolve_sets(
      {"run.threads_per_worker=4", "run.stall_warning_s=0.5", "run.stall_timeout_s=2"});
  EXPECT_EQ(set.run.threads_per_worker, 4);
  EXPECT_EQ(set.run.stall_warning_s, 0.5);
  EXPECT_EQ(set.run.stall_timeout_s, 2.0);
}

TEST(SetFlag, InfinityIsATomlFloat) {
  EXPECT_EQ(resolve_sets({"train.max_time=120"}).train.max_time, 120.0);
  EXPECT_EQ(resolve_sets({"train.max_time=inf"}).train.max_time,
            std::numeric_limits<double>::infinity());
}

TEST(SetFlag, ProtocolWordParametersAreStrings) {
  UserSettings settings;
  settings.add_set("protocol.mode=greedy");
  settings.add_set("protocol.steps=4");
  settings.add_set("protocol.compression=on");
  Config config;
  const GivenParams given = settings.apply_to(config);
  EXPECT_EQ(given.at("mode").value, ParamValue("greedy"));
  EXPECT_EQ(given.at("steps").value, ParamValue(4.0));
  EXPECT_EQ(given.at("compression").value, ParamValue("on"));
  EXPECT_EQ(given.at("steps").where, "--set protocol.steps=4");
}

// Where a key was set last: the latest layer that sets it, a file's line or the flag.
TEST(SetFlag, WhereAKeyWasSetLastIsNamed) {
  UserSettings settings;
  EXPECT_EQ(settings.where_set("protocol.name"), std::nullopt);
  settings.add_text("[protocol]\nname = \"asp\"\n", "exp.toml");
  settings.add_set("train.lr=0.1");
  EXPECT_EQ(settings.where_set("protocol.name"), "exp.toml:2");
  settings.add_set("protocol.name=ssp");
  EXPECT_EQ(settings.where_set("protocol.name"), "--set protocol.name=ssp");
  EXPECT_EQ(settings.where_set("run.name"), std::nullopt);
}

}  // namespace
}  // namespace hetps::config
