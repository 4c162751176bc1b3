// Every kind of bad input exits with status 2 and one message naming the flag, key or file,
// the value given and what is allowed; nothing is written.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

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

// The help to read is the command's whose line went wrong, which lists its flags.
TEST(BadInput, AFlagMistakePointsToItsCommandsHelp) {
  expect_bad_input(run_hetps({"train", "--bogus"}),
                   "Run 'hetps train --help' for the commands and flags.");
  expect_bad_input(run_hetps({"data", "fetch"}),
                   "Run 'hetps data fetch --help' for the commands and flags.");
  expect_bad_input(run_hetps({"data"}), "Run 'hetps data --help' for the commands and flags.");
  // A flag's value hetps reads after the parser: a --protocols entry, a --timeline-window.
  expect_bad_input(
      run_hetps({"compare", "--protocols", "bsp,nope"}),
      "unknown protocol \"nope\"; known: bsp, asp, ssp, local_sgd, sync_switch, petrel, "
      "sapus, ashl\nRun 'hetps compare --help' for the commands and flags.\n");
  expect_bad_input(run_hetps({"report", "runs", "--timeline-window", "abc"}),
                   "Run 'hetps report --help' for the commands and flags.");
}

TEST(BadInput, MissingSubCommand) {
  expect_bad_input(run_hetps({}), "A subcommand is required");
  expect_bad_input(run_hetps({}), "Run 'hetps --help' for the commands and flags.");
}

TEST(BadInput, UnknownCommandIsNamed) {
  expect_bad_input(run_hetps({"frobnicate"}),
                   "hetps: unknown command \"frobnicate\"; the commands are train, compare, "
                   "report, tune, data, protocols (hetps --help)\n");
}

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
                   "--set cluster.workers=two: cluster.workers must be an integer in [1, 4096], "
                   "got \"two\"");
}

// Every range is checked by tests/config; these show the command line passes them through.
TEST(BadInput, OutOfRange) {
  expect_bad_input(train_with({"cluster.workers=0"}),
                   "cluster.workers must be an integer in [1, 4096], got 0");
  expect_bad_input(train_with({"train.lr=-1"}), "train.lr must be a finite number > 0, got -1");
  expect_bad_input(train_with({"train.momentum=1"}),
                   "train.momentum must be a number in [0, 1), got 1");
}

TEST(BadInput, UnknownNamesListTheChoices) {
  expect_bad_input(train_with({"protocol.name=gossip"}),
                   "protocol.name must be one of: bsp, asp, ssp, ");
  // Each message names where the value was set, as for every other key.
  const Outcome model = train_with({"model.name=vgg"});
  expect_bad_input(model, "hetps: --set model.name=vgg: model.name must be one of: ");
  EXPECT_THAT(model.output, HasSubstr("mlp"));
  EXPECT_THAT(model.output, HasSubstr("got \"vgg\""));
  expect_bad_input(train_with({"data.name=cifar"}),
                   "hetps: --set data.name=cifar: data.name must be one of: fashion-mnist, idx, "
                   "mnist, synthetic, got \"cifar\"");
  expect_bad_input(run_hetps({"compare", "--protocols", "bsp", "--set", "data.name=cifar"}),
                   "hetps: --set data.name=cifar: data.name must be one of: ");
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
                   "--set protocol.staleness=-1: protocol.staleness: expected an integer in [0, "
                   "1000000], got -1");
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
                   file + ":3: cluster.servers must be an integer in [1, 256], got 0");
}

TEST(BadInput, EngineRefusingTheConfigLeavesNoRunDirectory) {
  const ScratchDir scratch;
  const Outcome outcome = run_hetps(testing::tiny_run(
      {"train", "--quiet", "--out", (scratch / "run").string(), "--set", "engine=mpi"}));
  expect_bad_input(outcome, "engine");
  EXPECT_TRUE(std::filesystem::is_empty(scratch.path()));
}

TEST(BadInput, TheSimulatorRefusesShardCrashesByName) {
  expect_bad_input(
      train_with({"data.name=synthetic", "data.synthetic_train=512", "data.synthetic_test=128",
                  "cluster.servers=2", "cluster.shard_failures=[{shard=1,time=1}]"}),
      "hetps: cluster.shard_failures: server-shard crashes are injected on the real engines only "
      "(threads, mpi)");
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
  expect_bad_input(run_hetps({"compare", "--protocols", "ssp,asp,ssp:staleness=3"}),
                   "--protocols: entries \"ssp\" and \"ssp:staleness=3\" run the same settings");
  expect_bad_input(run_hetps({"compare", "--protocols", "ssp:staleness=x"}),
                   "--protocols entry \"ssp:staleness=x\": protocol.staleness: expected a "
                   "number, got 'x'");
  // The entry names its run, and so its directory, with its slashes as '_': what is left to
  // refuse is the value.
  expect_bad_input(run_hetps({"compare", "--protocols", "bsp,ssp:staleness=../.."}),
                   "--protocols entry \"ssp:staleness=../..\": protocol.staleness: expected a "
                   "number");
  expect_bad_input(run_hetps({"compare"}), "--protocols is required");
  expect_bad_input(run_hetps({"compare", "--protocols", "bsp", "--seeds", "0"}),
                   "--seeds: expected a whole number from 1 to 10000, got \"0\"");
  expect_bad_input(run_hetps({"compare", "--protocols", "bsp", "--seeds", "2.5"}),
                   "--seeds: expected a whole number from 1 to 10000, got \"2.5\"");
  expect_bad_input(run_hetps({"compare", "--protocols", "bsp", "--seeds", "two"}),
                   "--seeds: expected a whole number from 1 to 10000, got \"two\"");
  expect_bad_input(run_hetps({"compare", "--protocols", "ssp:staleness=3:staleness=4"}),
                   "--protocols entry \"ssp:staleness=3:staleness=4\": parameter \"staleness\" is "
                   "given twice");
}

// What compare sets per run from --protocols is refused where a config or --set gives it,
// rather than overridden without a word.
TEST(BadInput, CompareRefusesWhatItSetsPerRun) {
  expect_bad_input(
      run_hetps({"compare", "--protocols", "bsp,asp", "--set", "protocol.name=ssp"}),
      "hetps: --set protocol.name=ssp: hetps compare takes each run's protocol from --protocols; "
      "give it there\n");
  expect_bad_input(run_hetps({"compare", "--protocols", "bsp", "--set", "run.name=same"}),
                   "hetps: --set run.name=same: hetps compare names each run after its "
                   "--protocols entry; leave run.name out\n");
}

// The mpi engine runs one run per mpirun job: refused before the comparison's directory is
// written, as it is written before the first run.
// Every seed of a comparison is one a config holds, and the plan of every run fits in memory.
TEST(BadInput, CompareSeedsStayWithinTheirRange) {
  expect_bad_input(run_hetps({"compare", "--protocols", "bsp", "--seeds", "2", "--set",
                              "seed=9223372036854775807"}),
                   "hetps: --seeds 2: the seeds from seed = 9223372036854775807 on would pass "
                   "the largest seed, 9223372036854775807\n");
  expect_bad_input(run_hetps({"compare", "--protocols", "bsp", "--seeds", "2147483647"}),
                   "--seeds: expected a whole number from 1 to 10000, got \"2147483647\"");
}

TEST(BadInput, CompareRefusesTheMpiEngine) {
  const ScratchDir scratch;
  expect_bad_input(run_hetps({"compare", "--protocols", "bsp", "--set", "engine=mpi", "--out",
                              (scratch / "cmp").string()}),
                   "hetps: engine = \"mpi\": hetps compare runs its runs one after another");
  EXPECT_TRUE(std::filesystem::is_empty(scratch.path())) << "bad input wrote files";
}

TEST(BadInput, CompareSharedParameterNoProtocolHas) {
  expect_bad_input(
      run_hetps({"compare", "--protocols", "bsp,asp", "--set", "protocol.staleness=4"}),
      "--set protocol.staleness=4: unknown key protocol.staleness; none of the compared "
      "protocols (bsp, asp) has it");
}

TEST(BadInput, CompareSharedParameterThatActsInNoEntry) {
  expect_bad_input(
      run_hetps({"compare", "--protocols", "bsp,ashl:compression=off", "--set",
                 "protocol.r_preset_ahl=0.05"}),
      "--set protocol.r_preset_ahl=0.05: protocol.r_preset_ahl acts only with "
      "protocol.compression = \"on\", and no compared entry that has it has that, so it would do "
      "nothing");
  expect_bad_input(
      run_hetps({"compare", "--protocols", "bsp,ssp:staleness=3", "--set", "protocol.staleness=5"}),
      "--set protocol.staleness=5: protocol.staleness is given by every compared "
      "entry that has it, so it would do nothing");
  // The first entry gives its own, the second has no compression.
  expect_bad_input(
      run_hetps({"compare", "--protocols", "ashl:r_preset_ahl=0.1,ashl:compression=off", "--set",
                 "protocol.r_preset_ahl=0.05"}),
      "and no compared entry that has it and does not give it itself has that, so it "
      "would do nothing");
  // An entry's own is refused as in `train`.
  expect_bad_input(
      run_hetps({"compare", "--protocols", "ashl,ashl:compression=off:r_preset_ahl=0.05"}),
      "--protocols entry \"ashl:compression=off:r_preset_ahl=0.05\": "
      "protocol.r_preset_ahl acts only with protocol.compression");
}

// Nesterov serves the entries with momentum; with none, it would do nothing.
TEST(BadInput, CompareNesterovWhereNoEntryHasMomentum) {
  expect_bad_input(
      run_hetps({"compare", "--protocols", "asp,ssp", "--set", "cluster.scenario=hetero-network",
                 "--set", "train.nesterov=true"}),
      "--set train.nesterov=true: train.nesterov acts only with train.momentum > 0, and no "
      "compared entry has one, so it would do nothing");
}

// A shared setting refused with one entry's own parameters names that entry.
TEST(BadInput, CompareNamesTheEntryASharedSettingIsRefusedWith) {
  expect_bad_input(
      run_hetps({"compare", "--protocols", "sync_switch,sync_switch:bsp_fraction=0.9", "--set",
                 "protocol.budget_steps=100", "--set", "train.max_samples=4000", "--set",
                 "cluster.workers=4"}),
      "the switch would never come; give budget_steps at most 34 (0: the run's budget) (with "
      "--protocols entry \"sync_switch:bsp_fraction=0.9\")");
  // Refused whatever the entry: none is named.
  const Outcome any_entry =
      run_hetps({"compare", "--protocols", "bsp,asp", "--set", "train.lr_step_gamma=0.5"});
  expect_bad_input(any_entry, "train.lr_step_gamma acts only with train.lr_schedule");
  EXPECT_THAT(any_entry.output, ::testing::Not(HasSubstr("(with --protocols entry")));
}

// The report's window is refused as the command line is read: before a report directory is
// looked at or a comparison runs.
TEST(BadInput, TimelineWindowIsNamedBeforeAnythingRuns) {
  const ScratchDir scratch;
  const std::string out = (scratch / "out").string();
  expect_bad_input(
      run_hetps({"report", scratch.path().string(), "--out", out, "--timeline-window", "5:2"}),
      "hetps: --timeline-window 5:2: expected START:END in seconds with 0 <= START "
      "< END (END left out: to the run's end), e.g. 0:30 or 10:; got END 2 not "
      "after START 5\n");
  expect_bad_input(
      run_hetps({"compare", "--protocols", "bsp", "--out", out, "--timeline-window", "soon"}),
      "hetps: --timeline-window soon: expected START:END in seconds");
  EXPECT_TRUE(std::filesystem::is_empty(scratch.path())) << "bad input wrote files";
}

TEST(BadInput, UnknownDataSetToFetch) {
  expect_bad_input(run_hetps({"data", "fetch", "cifar"}), "unknown data set \"cifar\"; known: ");
  expect_bad_input(run_hetps({"data", "fetch", "idx"}),
                   "data fetch: idx is a data set of your own, read from the four IDX files");
  expect_bad_input(run_hetps({"data", "fetch", "synthetic"}),
                   "synthetic is generated by hetps as a run starts");
}

// The data a run reads is input the user named: exit status 2, the message naming the file.
TEST(BadInput, DataDirectoryThatIsAFileIsNamed) {
  const ScratchDir scratch;
  const auto file = scratch / "file";
  std::ofstream(file) << "not a directory";
  expect_bad_input(run_hetps({"data", "fetch", "mnist", "--dir", file.string()}),
                   "hetps: --dir " + file.string() + ": not a directory\n");
}

TEST(BadInput, MissingDataFilesAreNamed) {
  const ScratchDir scratch;
  const Outcome outcome =
      run_hetps({"train", "--quiet", "--out", (scratch / "run").string(), "--set",
                 "data.name=mnist", "--set", "data.dir=" + (scratch / "none").string()});
  expect_bad_input(outcome, "hetps: " + (scratch / "none" / "mnist").string() + "/");
  EXPECT_THAT(outcome.output, HasSubstr(": file not found"));
  EXPECT_TRUE(std::filesystem::is_empty(scratch.path())) << "bad input wrote files";
}

TEST(BadInput, CorruptDataFilesAreNamed) {
  const ScratchDir scratch;
  const auto dir = scratch / "data" / "mnist";
  std::filesystem::create_directories(dir);
  for (const char* file : {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                           "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"}) {
    std::ofstream(dir / file) << "not an IDX file";
  }
  const Outcome outcome =
      run_hetps({"train", "--quiet", "--out", (scratch / "run").string(), "--set",
                 "data.name=mnist", "--set", "data.dir=" + (scratch / "data").string()});
  expect_bad_input(outcome, "hetps: " + dir.string() + "/");
  EXPECT_FALSE(std::filesystem::exists(scratch / "run"));
}

TEST(BadInput, BadTraceFileIsNamed) {
  const ScratchDir scratch;
  const std::string trace = (scratch / "trace.csv").string();
  std::ofstream(trace) << "when,who,how\n";
  const Outcome outcome =
      run_hetps(testing::tiny_run({"train", "--quiet", "--out", (scratch / "run").string(), "--set",
                                   "cluster.trace=" + trace}));
  expect_bad_input(outcome, "hetps: cluster.trace '" + trace + "', line 1: ");
  EXPECT_FALSE(std::filesystem::exists(scratch / "run"));
}

// A directory opens as a file does, and fails only when read.
TEST(BadInput, ADirectoryWhereAFileIsExpectedIsNamed) {
  const ScratchDir scratch;
  const auto folder = scratch / "folder";
  std::filesystem::create_directories(folder / "mnist" / "train-images-idx3-ubyte");
  for (const char* file :
       {"train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"}) {
    std::ofstream(folder / "mnist" / file) << "never read";
  }
  const auto train = [&](const std::vector<std::string>& sets) {
    std::vector<std::string> args = {"train", "--quiet", "--out", (scratch / "run").string()};
    for (const std::string& set : sets) args.insert(args.end(), {"--set", set});
    return run_hetps(testing::tiny_run(args));
  };
  expect_bad_input(train({"cluster.trace=" + folder.string()}),
                   "hetps: cluster.trace '" + folder.string() +
                       "': a directory; expected a CSV "
                       "file");
  expect_bad_input(train({"protocol.name=petrel", "protocol.agent=learned",
                          "protocol.agent_file=" + folder.string()}),
                   folder.string() + ": a directory; expected an agent file");
  expect_bad_input(run_hetps({"train", "--quiet", "--out", (scratch / "run").string(), "--set",
                              "data.name=mnist", "--set", "data.dir=" + folder.string()}),
                   (folder / "mnist" / "train-images-idx3-ubyte").string() +
                       ": is a directory, expected an IDX file");
  EXPECT_FALSE(std::filesystem::exists(scratch / "run"));
}

// Read whole, and first for its digest: a FIFO would block the run, and /dev/zero never end.
TEST(BadInput, ADataFileThatIsNoFileIsNamed) {
  const ScratchDir scratch;
  const auto folder = scratch / "folder";
  std::filesystem::create_directories(folder / "mnist");
  std::filesystem::create_symlink("/dev/zero", folder / "mnist" / "train-images-idx3-ubyte");
  for (const char* file :
       {"train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"}) {
    std::ofstream(folder / "mnist" / file) << "never read";
  }
  expect_bad_input(run_hetps({"train", "--quiet", "--out", (scratch / "run").string(), "--set",
                              "data.name=mnist", "--set", "data.dir=" + folder.string()}),
                   (folder / "mnist" / "train-images-idx3-ubyte").string() +
                       ": is a device, expected an IDX file");
  EXPECT_FALSE(std::filesystem::exists(scratch / "run"));
}

TEST(BadInput, OutInsideAFileIsNamed) {
  const ScratchDir scratch;
  const auto file = scratch / "file";
  std::ofstream(file) << "not a directory";
  const auto out = file / "run";
  expect_bad_input(
      run_hetps(testing::tiny_run({"train", "--quiet", "--out", out.string()})),
      "hetps: --out " + out.string() + ": cannot create the output directory: Not a directory\n");
  expect_bad_input(run_hetps({"compare", "--quiet", "--protocols", "bsp", "--out", out.string()}),
                   "hetps: --out " + out.string() + ": cannot create the output directory: ");
}

// An empty path (an unset shell variable, say) is refused, never read as the flag not given,
// which would write to, or read from, the command's default place.
TEST(BadInput, EmptyPathsAreRefused) {
  const std::vector<std::vector<std::string>> commands = {
      {"train", "--out", ""},
      {"train", "--resume", ""},
      {"train", "--config", ""},
      {"compare", "--protocols", "bsp", "--out", ""},
      {"report", ""},
      {"report", "runs", "--out", ""},
      {"tune", "sync-switch", "--runs", ""},
      {"data", "fetch", "mnist", "--dir", ""}};
  for (const std::vector<std::string>& command : commands) {
    const Outcome outcome = run_hetps(command);
    EXPECT_EQ(outcome.exit_code, 2) << fmt::format("{}", fmt::join(command, " "));
    EXPECT_THAT(outcome.output, HasSubstr(": an empty path; expected a file or directory name"))
        << fmt::format("{}", fmt::join(command, " "));
  }
  expect_bad_input(run_hetps({"compare", "--protocols", ""}),
                   ": an empty list; expected PROTOCOL[:PARAM=VALUE],...");
}

// `report` replaces an earlier report in place, without --force: never a directory that only
// holds a report.html beside other things, and never one that holds the runs it reads.
TEST(BadInput, ReportReplacesOnlyAnEarlierReport) {
  const ScratchDir scratch;
  const auto parent = scratch / "parent";
  const auto run = parent / "run";
  ASSERT_EQ(run_hetps(testing::tiny_run({"train", "--quiet", "--out", run.string()})).exit_code, 0);
  std::ofstream(parent / "report.html") << "an old page";
  expect_bad_input(run_hetps({"report", run.string(), "--out", parent.string()}),
                   "hetps: --out " + parent.string() + ": it holds " + run.string() +
                       ", which the report reads; choose another --out\n");
  EXPECT_TRUE(std::filesystem::exists(run / "summary.json"));

  const auto project = scratch / "project";
  std::filesystem::create_directories(project / "src");
  std::ofstream(project / "report.html") << "mine";
  std::ofstream(project / "src" / "main.c") << "mine";
  expect_bad_input(run_hetps({"report", run.string(), "--out", project.string()}),
                   "hetps: refusing to replace " + project.string() +
                       ": it holds src, which is not part of a hetps report");
  EXPECT_TRUE(std::filesystem::exists(project / "src" / "main.c"));
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
