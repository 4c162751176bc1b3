// Resolution order: built-in defaults < scenario < the scenario's protocol defaults < config
// file < --set.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "config/scenarios.h"
#include "config_test_util.h"
#include "protocol/registry.h"

namespace hetps::config {
namespace {

using testing::ConfigFile;
using ::testing::HasSubstr;
using testing::resolve_error;
using testing::resolve_sets;

TEST(Resolve, DefaultScenarioIsHeteroCompute) {
  const Config config = resolve_sets({});
  EXPECT_EQ(config.cluster.scenario, "hetero-compute");
  EXPECT_EQ(config.cluster.workers, 8);
  EXPECT_EQ(config.cluster.servers, 1);
  EXPECT_EQ(config.cluster.speeds, (std::vector<double>{1, 1, 1, 1, 0.5, 0.5, 0.25, 0.25}));
  EXPECT_EQ(config.cluster.link_gbps, std::vector<double>(8, 10));
  EXPECT_EQ(config.cluster.link_latency_ms, std::vector<double>(8, 0.05));
  EXPECT_EQ(config.cluster.worker_gflops, 2.8);
  EXPECT_EQ(config.cluster.compute_noise, 0.05);
}

TEST(Resolve, HeteroNetworkPutsTwoWorkersOnSlowLinks) {
  const Config config = resolve_sets({"cluster.scenario=hetero-network"});
  EXPECT_EQ(config.cluster.workers, 8);
  EXPECT_EQ(config.cluster.speeds, std::vector<double>(8, 1));
  EXPECT_EQ(config.cluster.link_gbps, (std::vector<double>{10, 10, 10, 10, 10, 10, 0.5, 0.5}));
  EXPECT_EQ(config.cluster.link_latency_ms,
            (std::vector<double>{0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 2.0, 2.0}));
}

// Another worker count keeps the scenario's mix: cycling its 8-entry lists over 4 workers gave
// four equal workers on fast links.
TEST(Resolve, AScenariosMixIsSpreadOverTheWorkerCount) {
  const Config four = resolve_sets({"cluster.workers=4"});
  EXPECT_EQ(four.cluster.speeds, (std::vector<double>{1, 1, 0.5, 0.25}));
  const Config network = resolve_sets({"cluster.scenario=hetero-network", "cluster.workers=4"});
  EXPECT_EQ(network.cluster.link_gbps, (std::vector<double>{10, 10, 10, 0.5}));
  EXPECT_EQ(network.cluster.link_latency_ms, (std::vector<double>{0.05, 0.05, 0.05, 2.0}));
  const Config sixteen = resolve_sets({"cluster.workers=16"});
  const std::vector<double> mix = {1, 1, 1, 1, 0.5, 0.5, 0.25, 0.25};
  std::vector<double> twice = mix;
  twice.insert(twice.end(), mix.begin(), mix.end());
  EXPECT_EQ(sixteen.cluster.speeds, twice);
  // The user's own list is theirs: cycled by the engines, as written.
  EXPECT_EQ(resolve_sets({"cluster.workers=4", "cluster.speeds=[1.0, 0.5]"}).cluster.speeds,
            (std::vector<double>{1, 0.5}));
}

TEST(Resolve, SpreadOverKeepsTheMixAtEveryCount) {
  const std::vector<double> mix = {1, 1, 1, 1, 0.5, 0.5, 0.25, 0.25};
  EXPECT_EQ(spread_over(mix, 1), std::vector<double>{0.5});
  EXPECT_EQ(spread_over(mix, 2), (std::vector<double>{1, 0.25}));
  EXPECT_EQ(spread_over(mix, 5), (std::vector<double>{1, 1, 0.5, 0.5, 0.25}));
  EXPECT_EQ(spread_over(mix, 8), mix);
  const std::vector<double> twelve = spread_over(mix, 12);
  EXPECT_EQ(std::count(twelve.begin(), twelve.end(), 1.0), 6);
  EXPECT_EQ(std::count(twelve.begin(), twelve.end(), 0.5), 3);
  EXPECT_EQ(std::count(twelve.begin(), twelve.end(), 0.25), 3);
  EXPECT_EQ(spread_over({2.0}, 3), (std::vector<double>{2, 2, 2}));
}

TEST(Resolve, EveryScenarioResolvesWithEveryProtocol) {
  for (const Scenario& scenario : scenarios()) {
    for (const auto& info : protocol::all_protocols()) {
      UserSettings settings;
      settings.add_string("cluster.scenario", scenario.name, "test");
      settings.add_string("protocol.name", info.name, "test");
      EXPECT_NO_THROW(resolve(settings)) << scenario.name << " " << info.name;
    }
  }
}

TEST(Resolve, ProtocolDefaultsOfTheScenarioApply) {
  // The frozen values of docs/defaults.md.
  struct Expected {
    const char* scenario;
    const char* protocol;
    double lr;
    double momentum;
  };
  for (const Expected& e :
       {Expected{"hetero-compute", "bsp", 0.05, 0.9},
        Expected{"hetero-compute", "local_sgd", 0.05, 0.9},
        Expected{"hetero-compute", "asp", 0.05, 0.0}, Expected{"hetero-compute", "ssp", 0.02, 0.5},
        Expected{"hetero-network", "asp", 0.05, 0.0},
        Expected{"hetero-network", "ssp", 0.05, 0.0}}) {
    const Config config = resolve_sets({std::string("protocol.name=") + e.protocol,
                                        std::string("cluster.scenario=") + e.scenario});
    EXPECT_EQ(config.train.lr, e.lr) << e.scenario << " " << e.protocol;
    EXPECT_EQ(config.train.momentum, e.momentum) << e.scenario << " " << e.protocol;
    EXPECT_EQ(config.data.batch_size, 32);
    EXPECT_EQ(config.train.max_samples, 300000);
    EXPECT_EQ(config.train.target_accuracy, 0.85);
  }
}

TEST(Resolve, AsynchronousLearningRateShrinksWithMoreWorkersThanTheSweepHad) {
  EXPECT_EQ(resolve_sets({"protocol.name=asp", "cluster.workers=64"}).train.lr, 0.05 * 8 / 64);
  EXPECT_EQ(resolve_sets({"protocol.name=ssp", "cluster.workers=16"}).train.lr, 0.02 * 8 / 16);
  EXPECT_EQ(resolve_sets({"protocol.name=asp", "cluster.workers=4"}).train.lr, 0.05);
  EXPECT_EQ(resolve_sets({"protocol.name=bsp", "cluster.workers=64"}).train.lr, 0.05);
  EXPECT_EQ(resolve_sets({"protocol.name=asp", "cluster.workers=64", "train.lr=0.05"}).train.lr,
            0.05)
      << "an explicit setting always wins";
}

TEST(Resolve, ProtocolMissingFromTheDefaultsTableKeepsBuiltInDefaults) {
  EXPECT_FALSE(training_defaults("hetero-compute", "no-such-protocol", 8));
  EXPECT_FALSE(training_defaults("no-such-scenario", "bsp", 8));
}

// A comparison is fair only when every protocol trains to the scenario's budget and target: a
// built-in protocol missing from the table would silently run with other ones.
TEST(Resolve, EveryBuiltInProtocolHasTrainingDefaultsInEveryScenario) {
  for (const Scenario& scenario : scenarios()) {
    for (const protocol::ProtocolInfo& info : protocol::all_protocols()) {
      EXPECT_TRUE(training_defaults(scenario.name, info.name, scenario.workers))
          << info.name << " on " << scenario.name;
    }
  }
}

TEST(Resolve, ConfigFileOverridesProtocolDefaults) {
  const ConfigFile file(R"(
[train]
lr = 0.2
[protocol]
name = "asp"
)");
  const Config config = resolve_sets({}, &file);
  EXPECT_EQ(config.protocol.name, "asp");
  EXPECT_EQ(config.train.lr, 0.2);
  EXPECT_EQ(config.train.momentum, training_defaults("hetero-compute", "asp", 8)->momentum);
}

TEST(Resolve, SetOverridesConfigFileAndLaterSetWins) {
  const ConfigFile file("train.lr = 0.2\ncluster.workers = 4\n");
  const Config config =
      resolve_sets({"train.lr=0.3", "cluster.workers=2", "cluster.workers=3"}, &file);
  EXPECT_EQ(config.train.lr, 0.3);
  EXPECT_EQ(config.cluster.workers, 3);
}

TEST(Resolve, ScenarioAndProtocolChosenInDifferentPlacesBothCount) {
  const ConfigFile file("cluster.scenario = \"hetero-network\"\n");
  const Config config = resolve_sets({"protocol.name=ssp"}, &file);
  EXPECT_EQ(config.cluster.link_gbps.back(), 0.5);
  EXPECT_EQ(config.train.lr, training_defaults("hetero-network", "ssp", 8)->lr);
}

TEST(Resolve, ExplicitClusterSettingsBeatTheScenario) {
  const Config config = resolve_sets({"cluster.speeds=[2.0]", "cluster.worker_gflops=5"});
  EXPECT_EQ(config.cluster.speeds, std::vector<double>{2.0});
  EXPECT_EQ(config.cluster.worker_gflops, 5.0);
  EXPECT_EQ(config.cluster.workers, 8);
}

// A run's config.toml names its protocol and holds all of its parameters: reused with another
// protocol.name, they stay that protocol's, while a parameter the file gives for the protocol it
// names, or a --set one, is still checked against the run's protocol.
TEST(Resolve, AFilesParametersAreForTheProtocolItNames) {
  const ConfigFile ssp_run("protocol.name = \"ssp\"\nprotocol.staleness = 5\n");
  const Config reused = resolve_sets({"protocol.name=local_sgd"}, &ssp_run);
  EXPECT_EQ(reused.protocol.name, "local_sgd");
  EXPECT_FALSE(reused.protocol.params.contains("staleness"));
  EXPECT_EQ(reused.run.name, "local_sgd");
  EXPECT_EQ(resolve_sets({}, &ssp_run).protocol.params.at("staleness"), ParamValue{5.0});
  // Petrel and ASHL both have a `window`: Petrel's does not become ASHL's.
  const ConfigFile petrel_run("protocol.name = \"petrel\"\nprotocol.window = 7\n");
  EXPECT_EQ(resolve_sets({"protocol.name=ashl"}, &petrel_run).protocol.params.at("window"),
            protocol::find_protocol("ashl")->find_param("window")->default_value);
  EXPECT_THAT(resolve_error({"protocol.name=local_sgd", "protocol.staleness=5"}, &ssp_run),
              HasSubstr("--set protocol.staleness=5: protocol.staleness: protocol 'local_sgd' has "
                        "no parameter 'staleness'"));
  const ConfigFile mistaken("protocol.name = \"ssp\"\nprotocol.local_steps = 5\n");
  EXPECT_THAT(resolve_error({}, &mistaken), HasSubstr("protocol 'ssp' has no parameter"));
  const ConfigFile unnamed("protocol.staleness = 5\n");
  EXPECT_EQ(resolve_sets({"protocol.name=ssp"}, &unnamed).protocol.params.at("staleness"),
            ParamValue{5.0});
  EXPECT_THAT(resolve_error({"protocol.name=local_sgd"}, &unnamed),
              HasSubstr("protocol 'local_sgd' has no parameter 'staleness'"));
}

TEST(Resolve, RunNameDefaultsToTheProtocolName) {
  EXPECT_EQ(resolve_sets({"protocol.name=ssp"}).run.name, "ssp");
  EXPECT_EQ(resolve_sets({"protocol.name=ssp", "run.name=mine"}).run.name, "mine");
}

TEST(Resolve, ProtocolParametersAreCompletedWithDefaults) {
  const auto& ssp = *protocol::find_protocol("ssp");
  const protocol::ParamSpec& staleness = *ssp.find_param("staleness");
  const Config defaults = resolve_sets({"protocol.name=ssp"});
  EXPECT_EQ(defaults.protocol.params.at("staleness"), staleness.default_value);
  EXPECT_EQ(defaults.protocol.params.size(), ssp.params.size());
  const Config set = resolve_sets({"protocol.name=ssp", "protocol.staleness=8"});
  EXPECT_EQ(set.protocol.params.at("staleness"), ParamValue(8.0));
}

TEST(Resolve, ProtocolParameterMayComeBeforeTheProtocolIsChosen) {
  const ConfigFile file("[protocol]\nstaleness = 5\n");
  const Config config = resolve_sets({"protocol.name=ssp"}, &file);
  EXPECT_EQ(config.protocol.params.at("staleness"), ParamValue(5.0));
}

TEST(Resolve, ForeignProtocolParametersAreSkippedOnlyWhenAsked) {
  const UserSettings settings =
      testing::settings_from({"protocol.name=bsp", "protocol.staleness=8"});
  EXPECT_THROW(resolve(settings), ConfigError);
  const Config config = resolve(settings, {.compare_entry = "--protocols entry \"bsp\""});
  EXPECT_EQ(config.protocol.params.count("staleness"), 0u);
}

TEST(Resolve, SkippingForeignParametersStillChecksKnownOnes) {
  const UserSettings settings =
      testing::settings_from({"protocol.name=ssp", "protocol.staleness=2.5"});
  EXPECT_THROW(resolve(settings, {.compare_entry = "--protocols entry \"ssp\""}), ConfigError);
}

std::string resolve_error_with(const UserSettings& settings, const ResolveOptions& options) {
  try {
    resolve(settings, options);
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

TEST(Resolve, ASharedParameterThatWouldDoNothingIsSkippedAndAnEntrysOwnIsRefused) {
  UserSettings settings = testing::settings_from({"protocol.r_preset_ahl=0.05"});
  const std::string entry = "--protocols entry \"ashl:compression=off\"";
  settings.add_string("protocol.name", "ashl", entry);
  settings.add_string("protocol.compression", "off", entry);
  EXPECT_THROW(resolve(settings), ConfigError);
  const Config config = resolve(settings, {.compare_entry = entry});
  EXPECT_EQ(config.protocol.params.at("r_preset_ahl"),
            protocol::find_protocol("ashl")->find_param("r_preset_ahl")->default_value);
  settings.add("protocol.r_preset_shl", "0.05", entry);
  EXPECT_THAT(resolve_error_with(settings, {.compare_entry = entry}),
              HasSubstr(entry + ": protocol.r_preset_shl acts only with protocol.compression"));
}

TEST(Resolve, ResolvedConfigIsConsistent) {
  EXPECT_EQ(resolve_error({"cluster.stragglers=[{worker=1,start=0,duration=1,slowdown=2}]",
                           "cluster.workers=2"}),
            "");
}

// The protocols are those registered when a config is read: a program may register its own
// after a first config was read (`hetps tune petrel` reads the user's before it registers its
// episodes' protocol).
TEST(Resolve, AProtocolRegisteredAfterAConfigWasReadIsKnown) {
  EXPECT_EQ(resolve_sets({"protocol.name=bsp"}).protocol.name, "bsp");
  {
    const protocol::ProtocolRegistration late(
        protocol::ProtocolInfo{"registered_late", "a test's", {}, nullptr});
    EXPECT_EQ(resolve_sets({"protocol.name=registered_late"}).protocol.name, "registered_late");
  }
  EXPECT_EQ(resolve_error({"protocol.name=registered_late"}),
            "--set protocol.name=registered_late: protocol.name must be one of: bsp, asp, ssp, "
            "local_sgd, sync_switch, petrel, sapus, ashl, got \"registered_late\"");
}

}  // namespace
}  // namespace hetps::config
