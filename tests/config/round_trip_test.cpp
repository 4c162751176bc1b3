// The resolved config written as TOML reads back to the same Config: a run directory's
// config.toml reproduces the run.
#include <gtest/gtest.h>

#include <gmock/gmock.h>

#include "config/toml_writer.h"
#include "config_test_util.h"

namespace hetps::config {
namespace {

using testing::ConfigFile;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::resolve_sets;

Config read_back(const Config& config) {
  const ConfigFile file(to_toml_text(config));
  return resolve_sets({}, &file);
}

TEST(RoundTrip, DefaultConfig) {
  const Config config = resolve_sets({});
  EXPECT_EQ(read_back(config), config);
}

TEST(RoundTrip, EveryKindOfValue) {
  const Config config = resolve_sets({
      "seed=42",
      "engine=threads",
      "data.name=synthetic",
      "data.partition=noniid",
      "data.synthetic_train=1000",
      "train.lr=0.1",
      "train.momentum=0.3333333333333333",
      "train.nesterov=true",
      "train.lr_schedule=step",
      "train.lr_step_samples=5000",
      "train.max_time=inf",
      "train.stop_at_target=true",
      "cluster.scenario=hetero-network",
      "cluster.workers=5",
      "cluster.speeds=[1.0, 0.7, 0.1]",
      "cluster.stragglers=[{worker=1,start=10,duration=5,slowdown=3}]",
      "cluster.random_stragglers={rate_per_min=0.5}",
      "cluster.trace=trace \"v2\".csv",
      "cluster.failures=[{worker=4,time=12.5,kind=\"hang\"}, {worker=0,time=3}]",
      "cluster.servers=2",
      "cluster.shard_failures=[{shard=1,time=2.5}]",
      "protocol.name=ssp",
      "protocol.staleness=8",
      "run.name=ssp:staleness=8",
      "run.threads_per_worker=2",
      "run.server_apply_threads=3",
      "run.stall_warning_s=0.25",
      "run.stall_timeout_s=7",
  });
  EXPECT_EQ(read_back(config), config);
}

TEST(RoundTrip, ChangedScenarioDefaultsStayChanged) {
  const Config config = resolve_sets({"protocol.name=asp", "train.lr=0.5", "data.batch_size=7"});
  const Config back = read_back(config);
  EXPECT_EQ(back.train.lr, 0.5);
  EXPECT_EQ(back.data.batch_size, 7);
  EXPECT_EQ(back, config);
}

TEST(RoundTrip, TextIsReadableTomlInSchemaOrder) {
  const std::string text = to_toml_text(resolve_sets({"protocol.name=ssp"}));
  EXPECT_THAT(text, ::testing::StartsWith("seed = 1\nengine = \"sim\"\n\n[model]\n"));
  EXPECT_THAT(text, HasSubstr("\n[train]\nlr = 0.02\nmomentum = 0.5\n"));
  EXPECT_THAT(text, HasSubstr("\nrandom_stragglers.rate_per_min = 0.0\n"));
  EXPECT_THAT(text, HasSubstr("\n[protocol]\nname = \"ssp\"\nstaleness = "));
  EXPECT_THAT(text, HasSubstr("max_time = inf\n"));
  EXPECT_THAT(text, HasSubstr("\nfailures = []\n"));
  EXPECT_THAT(text, HasSubstr("\nthreads_per_worker = 1\nserver_apply_threads = 1\n"
                              "stall_warning_s = 10.0\nstall_timeout_s = 120.0\n"));
}

TEST(RoundTrip, FailuresAreWrittenAsInlineTables) {
  const std::string text = to_toml_text(resolve_sets({"cluster.failures=[{worker=2,time=1}]"}));
  EXPECT_THAT(text, HasSubstr("\nfailures = [{ kind = \"crash\", time = 1.0, worker = 2 }]\n"));
}

// The default run name is the protocol's: left out, so that loading the file with another
// protocol names the run after that one.
TEST(RoundTrip, DefaultRunNameIsNotWritten) {
  const Config bsp = resolve_sets({"protocol.name=bsp"});
  const std::string text = to_toml_text(bsp);
  const size_t run_table = text.find("\n[run]\n");
  ASSERT_NE(run_table, std::string::npos) << "the run's other keys are written";
  EXPECT_THAT(text.substr(run_table), Not(HasSubstr("name")));
  EXPECT_FALSE(to_toml(bsp).at_path("run.name"));
  EXPECT_EQ(read_back(bsp), bsp);

  const ConfigFile file(text);
  EXPECT_EQ(resolve_sets({"protocol.name=asp"}, &file).run.name, "asp");
}

TEST(RoundTrip, ChosenRunNameIsWritten) {
  const Config config = resolve_sets({"protocol.name=bsp", "run.name=baseline"});
  const std::string text = to_toml_text(config);
  EXPECT_THAT(text, HasSubstr("\n[run]\nname = \"baseline\"\n"));
  const ConfigFile file(text);
  EXPECT_EQ(resolve_sets({"protocol.name=asp"}, &file).run.name, "baseline");
}

TEST(RoundTrip, TableHoldsEveryKeyAndTheProtocolParameters) {
  const toml::table table = to_toml(resolve_sets({"protocol.name=ssp", "protocol.staleness=8"}));
  EXPECT_EQ(table.at_path("protocol.staleness").value<int64_t>(), 8);
  EXPECT_EQ(table.at_path("cluster.workers").value<int64_t>(), 8);
  EXPECT_TRUE(table.at_path("cluster.stragglers").is_array());
}

}  // namespace
}  // namespace hetps::config
