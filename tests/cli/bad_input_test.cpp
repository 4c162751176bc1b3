// Every kind of bad input exits with status 2 and one message naming the flag, key or file,
// the value given and what is allowed; nothing is written.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "cli/hetps_process.h"

namespace hetps::cli {
namespace {

using ::testing::HasSubstr;
using testing::Outcome;
using testing::run_hetps;
using testing::ScratchDir;

// Runs `train` with `sets` into a scratch directory; checks that nothing was written.
Outcome train_with(const std::vector<std::string>& sets) {
  const ScratchDir scratch;
  std::vector<std::string> args = {"train", "--quiet", "--out", (scratch / "run").string()};
  for (const std::string& set : sets) {
    args.push_back("--set");
    args.push_back(set);
  }
  Outcome outcome = run_hetps(args);
  EXPECT_TRUE(std::filesystem::is_empty(scratch.path())) << "bad input wrote files";
  return outcome;
}

void expect_bad_input(const Outcome& outcome, const std::string& message) {
  EXPECT_EQ(outcome.exit_code, 2) << outcome.output;
  EXPECT_THAT(outcome.output, HasSubstr(message));
}

TEST(BadInput, UnknownFlag) {
  expect_bad_input(run_hetps({"train", "--bogus"}),
                   "The following argument was not expected: --bogus");
}

TEST(BadInput, MissingSubCommand) { expect_bad_input(run_hetps({}), "A subcommand is required"); }

TEST(BadInput, SetWithoutEquals) {
  expect_bad_input(train_with({"train.lr"}),
                   "hetps: --set train.lr: expected KEY=VALUE, e.g. --set train.lr=0.1\n");
}

TEST(BadInput, UnknownKeyListsTheTablesKeys) {
  expect_bad_input(train_with({"train.lrr=0.1"}),
                   "--set train.lrr=0.1: unknown key train.lrr; train has: lr, momentum, ");
}

TEST(BadInput, WrongType) {
  expect_bad_input(train_with({"cluster.workers=two"}),
                   "--set cluster.workers=two: cluster.workers must be an integer >= 1, got "
                   "\"two\"");
}

// Every range is checked by tests/config; these show the command line passes them through.
TEST(BadInput, OutOfRange) {
  expect_bad_input(train_with({"cluster.workers=0"}),
                   "cluster.workers must be an integer >= 1, got 0");
  expect_bad_input(train_with({"train.lr=-1"}), "train.lr must be a number > 0, got -1");
  expect_bad_input(train_with({"train.momentum=1"}),
                   "train.momentum must be a number in [0, 1), got 1");
}

TEST(BadInput, UnknownNamesListTheChoices) {
  expect_bad_input(train_with({"protocol.name=gossip"}),
                   "protocol.name must be one of: bsp, asp, ssp, ");
  const Outcome model = train_with({"model.name=vgg"});
  expect_bad_input(model, "model.name must be one of: ");
  EXPECT_THAT(model.output, HasSubstr("mlp"));
  EXPECT_THAT(model.output, HasSubstr("got \"vgg\""));
  expect_bad_input(train_with({"data.name=cifar"}),
                   "data.name must be one of: fashion-mnist, mnist, synthetic, got \"cifar\"");
  expect_bad_input(train_with({"engine=gpu"}),
                   "engine must be one of: sim, threads, mpi, got \"gpu\"");
  expect_bad_input(train_with({"cluster.scenario=cloud"}),
                   "cluster.scenario must be one of: hetero-compute, hetero-network, got "
                   "\"cloud\"");
  expect_bad_input(train_with({"data.partition=random"}),
                   "data.partition must be one of: iid, noniid, got \"random\"");
  expect_bad_input(train_with({"train.lr_schedule=linear"}),
                   "train.lr_schedule must be one of: constant, step, cosine, got \"linear\"");
}

TEST(BadInput, ProtocolParameter) {
  expect_bad_input(train_with({"protocol.name=ssp", "protocol.staleness=-1"}),
                   "--set protocol.staleness=-1: protocol.staleness (a parameter of ssp): ");
}

TEST(BadInput, UnreadableConfigFile) {
  expect_bad_input(run_hetps({"train", "--config", "/no/such/exp.toml"}),
                   "cannot read config file /no/such/exp.toml");
}

TEST(BadInput, InvalidTomlNamesTheLine) {
  const ScratchDir scratch;
  const std::string file = (scratch / "bad.toml").string();
  std::ofstream(file) << "seed = 1\n[train\nlr = 0.1\n";
  expect_bad_input(run_hetps({"train", "--config", file}), file + ":2:");
}

TEST(BadInput, ValueInConfigFileNamesFileAndLine) {
  const ScratchDir scratch;
  const std::string file = (scratch / "exp.toml").string();
  std::ofstream(file) << "[cluster]\nworkers = 2\nservers = 0\n";
  expect_bad_input(run_hetps({"train", "--config", file}),
                   file + ":3: cluster.servers must be an integer >= 1, got 0");
}

TEST(BadInput, EngineRefusingTheConfigLeavesNoRunDirectory) {
  const ScratchDir scratch;
  const Outcome outcome = run_hetps(testing::tiny_run(
      {"train", "--quiet", "--out", (scratch / "run").string(), "--set", "engine=mpi"}));
  expect_bad_input(outcome, "engine");
  EXPECT_TRUE(std::filesystem::is_empty(scratch.path()));
}

TEST(BadInput, CompareEntries) {
  expect_bad_input(run_hetps({"compare", "--protocols", "bsp,gossip"}),
                   "--protocols entry \"gossip\": unknown protocol \"gossip\"; known: bsp, ");
  expect_bad_input(run_hetps({"compare", "--protocols", "bsp,ssp:stale=3"}),
                   "--protocols entry \"ssp:stale=3\": ssp has no parameter \"stale\"; its "
                   "parameters: staleness");
  expect_bad_input(run_hetps({"compare", "--protocols", "ssp:staleness"}),
                   "expected PARAMETER=VALUE after ':', got \"staleness\"");
  expect_bad_input(run_hetps({"compare", "--protocols", "bsp,,asp"}), "empty entry");
  expect_bad_input(run_hetps({"compare", "--protocols", "bsp,bsp"}),
                   "entry \"bsp\" is listed twice");
  expect_bad_input(run_hetps({"compare", "--protocols", "ssp:staleness=x"}),
                   "--protocols entry \"ssp:staleness=x\": protocol.staleness (a parameter of "
                   "ssp): expected a number, got \"x\"");
  expect_bad_input(run_hetps({"compare"}), "--protocols is required");
  expect_bad_input(run_hetps({"compare", "--protocols", "bsp", "--seeds", "0"}), "--seeds");
}

TEST(BadInput, CompareSharedParameterNoProtocolHas) {
  expect_bad_input(
      run_hetps({"compare", "--protocols", "bsp,asp", "--set", "protocol.staleness=4"}),
      "--set protocol.staleness=4: unknown key protocol.staleness; none of the compared "
      "protocols (bsp, asp) has it");
}

TEST(BadInput, UnknownDataSetToFetch) {
  expect_bad_input(run_hetps({"data", "fetch", "cifar"}), "unknown data set \"cifar\"; known: ");
}

TEST(RunFailure, MissingDataFilesExitWithOne) {
  const ScratchDir scratch;
  const Outcome outcome =
      run_hetps({"train", "--quiet", "--out", (scratch / "run").string(), "--set",
                 "data.name=mnist", "--set", "data.dir=" + (scratch / "none").string()});
  EXPECT_EQ(outcome.exit_code, 1) << outcome.output;
  EXPECT_THAT(outcome.output, HasSubstr("hetps: error: "));
  EXPECT_FALSE(std::filesystem::exists(scratch / "run"));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(scratch.path()), {}), 0);
}

TEST(Informational, VersionAndProtocols) {
  const Outcome version = run_hetps({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_THAT(version.output, HasSubstr("hetps 0.1.0"));
  const Outcome protocols = run_hetps({"protocols"});
  EXPECT_EQ(protocols.exit_code, 0);
  EXPECT_THAT(protocols.output, HasSubstr("    protocol.staleness = "));
  EXPECT_THAT(protocols.output, HasSubstr("(integer in [0, "));
  EXPECT_THAT(protocols.output, HasSubstr("\nasp  "));
}

}  // namespace
}  // namespace hetps::cli
