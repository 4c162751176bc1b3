// A tiny successful `hetps train`: the run directory, its files and their contents, and how
// an existing directory is treated.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/hetps_process.h"

namespace hetps::cli {
namespace {

using ::testing::HasSubstr;
using testing::Outcome;
using testing::read_file;
using testing::run_hetps;
using testing::ScratchDir;
using ::testing::StartsWith;
using testing::summary_without_wall_clock;
using testing::tiny_run;

// Runs `command`, which writes `out` and replaces it (--force); then, for each of `notes`, a
// file of the user's put under `out`, expects the command refused naming the note as not part
// of `kind`, and the note kept; without them, the command replaces `out` again.
void expect_force_keeps_notes(const std::vector<std::string>& command,
                              const std::filesystem::path& out,
                              const std::vector<std::string>& notes, const std::string& kind) {
  ASSERT_EQ(run_hetps(command).exit_code, 0);
  for (const std::string& note : notes) {
    std::filesystem::create_directories((out / note).parent_path());
    std::ofstream(out / note) << "mine";
    const Outcome outcome = run_hetps(command);
    EXPECT_EQ(outcome.exit_code, 2) << outcome.output;
    EXPECT_THAT(outcome.output, HasSubstr("refusing to replace " + out.string() + ": it holds " +
                                          note + ", which is not part of " + kind));
    EXPECT_EQ(read_file(out / note), "mine");
    std::filesystem::remove(out / note);
  }
  EXPECT_EQ(run_hetps(command).exit_code, 0);
}

TEST(Train, WritesConfigLogAndSummary) {
  const ScratchDir scratch;
  const auto run = scratch / "run";
  const Outcome outcome = run_hetps(tiny_run({"train", "--out", run.string()}));
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  EXPECT_THAT(outcome.output, HasSubstr("bsp finished (max_samples)"));
  EXPECT_THAT(outcome.output, HasSubstr("run directory: " + run.string()));

  const nlohmann::json summary = nlohmann::json::parse(read_file(run / "summary.json"));
  EXPECT_EQ(summary.at("protocol"), "bsp");
  EXPECT_EQ(summary.at("run_name"), "bsp");
  EXPECT_EQ(summary.at("engine"), "sim");
  EXPECT_EQ(summary.at("workers"), 2);
  EXPECT_EQ(summary.at("seed"), 1);
  EXPECT_EQ(summary.at("stop_reason"), "max_samples");
  EXPECT_GE(summary.at("samples").get<int64_t>(), 2000);
  EXPECT_GT(summary.at("wall_seconds").get<double>(), 0.0);
  // The project's BLAS is OpenBLAS (scripts/install-deps.sh), which names the kernels it chose.
  EXPECT_THAT(summary.value("blas_kernel", ""), StartsWith("OpenBLAS ")) << summary.dump(2);

  std::ifstream log(run / "log.jsonl");
  int evaluations = 0;
  for (std::string line; std::getline(log, line);) {
    const nlohmann::json record = nlohmann::json::parse(line);
    ASSERT_TRUE(record.contains("type")) << line;
    evaluations += record.at("type") == "eval";
    EXPECT_NE(record.at("type"), "diverged") << line;
  }
  EXPECT_GE(evaluations, 1);

  const std::string config = read_file(run / "config.toml");
  EXPECT_THAT(config, HasSubstr("\nworkers = 2\n"));
  EXPECT_THAT(config, HasSubstr("\nname = \"synthetic\"\n"));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(scratch.path()), {}), 1)
      << "a staging directory was left behind";
}

// A loss that overflows is logged as null (JSON has no NaN); the first such evaluation also
// leaves a `diverged` record, and the progress says so, which the accuracy alone would not.
TEST(Train, ARunThatDivergesSaysSoOnce) {
  const ScratchDir scratch;
  const auto run = scratch / "run";
  const Outcome outcome =
      run_hetps(tiny_run({"train", "--out", run.string(), "--set", "train.lr=1e10", "--set",
                          "train.eval_interval=0.05"}));
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  EXPECT_THAT(outcome.output, HasSubstr("training diverged (a smaller train.lr may help)"));
  std::ifstream log(run / "log.jsonl");
  int diverged = 0;
  int null_losses = 0;
  for (std::string line; std::getline(log, line);) {
    const nlohmann::json record = nlohmann::json::parse(line);
    diverged += record.at("type") == "diverged";
    null_losses += record.at("type") == "eval" && record.at("test_loss").is_null();
  }
  EXPECT_EQ(diverged, 1);
  EXPECT_GE(null_losses, 2) << "the run went on after it diverged: one record, not one per eval";
}

// A worker past run.stall_warning_s is said while the run goes on, not only in the run log: an
// asynchronous run that outlives a hung worker ends well and would say nothing else of it.
TEST(Train, AStallWarningIsShownWhileTheRunGoesOn) {
  const ScratchDir scratch;
  const Outcome outcome = run_hetps(
      tiny_run({"train", "--out", (scratch / "run").string(), "--set", "protocol.name=asp", "--set",
                "cluster.failures=[{worker=1,time=0.05,kind=\"hang\"}]", "--set",
                "run.stall_warning_s=0.2"}));
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  EXPECT_THAT(outcome.output,
              HasSubstr("asp: warning: at virtual time 0.2 s: slow: worker 1 (waiting for its "
                        "update since"));
  const Outcome quiet = run_hetps(tiny_run(
      {"train", "--quiet", "--out", (scratch / "quiet").string(), "--set", "protocol.name=asp",
       "--set", "cluster.failures=[{worker=1,time=0.05,kind=\"hang\"}]", "--set",
       "run.stall_warning_s=0.2"}));
  ASSERT_EQ(quiet.exit_code, 0) << quiet.output;
  EXPECT_THAT(quiet.output, ::testing::Not(HasSubstr("warning")));
}

TEST(Train, ConfigTomlReproducesTheRun) {
  const ScratchDir scratch;
  ASSERT_EQ(
      run_hetps(tiny_run({"train", "--quiet", "--out", (scratch / "first").string()})).exit_code,
      0);
  const Outcome again =
      run_hetps({"train", "--quiet", "--config", (scratch / "first" / "config.toml").string(),
                 "--out", (scratch / "again").string()});
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(summary_without_wall_clock(scratch / "again"),
            summary_without_wall_clock(scratch / "first"));
  EXPECT_EQ(read_file(scratch / "again" / "log.jsonl"), read_file(scratch / "first" / "log.jsonl"));
}

TEST(Train, QuietPrintsOnlyTheResultLine) {
  const ScratchDir scratch;
  const Outcome outcome =
      run_hetps(tiny_run({"train", "--quiet", "--out", (scratch / "run").string()}));
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  EXPECT_EQ(std::count(outcome.output.begin(), outcome.output.end(), '\n'), 1) << outcome.output;
  EXPECT_THAT(outcome.output, ::testing::StartsWith("bsp: final accuracy "));
  EXPECT_THAT(outcome.output, ::testing::Not(::testing::HasSubstr("ended early")));
  // Found by a probe: with every worker failed, the line read as a finished run's.
  const Outcome failed =
      run_hetps(tiny_run({"train", "--quiet", "--out", (scratch / "failed").string(), "--set",
                          "cluster.failures=[{worker=0,time=0.01},{worker=1,time=0.01}]"}));
  ASSERT_EQ(failed.exit_code, 0) << failed.output;
  EXPECT_THAT(failed.output, ::testing::HasSubstr("; ended early (every_worker_failed); "));
}

TEST(Train, ExistingOutputNeedsForce) {
  const ScratchDir scratch;
  const auto run = scratch / "run";
  std::filesystem::create_directories(run);
  std::ofstream(run / "summary.json") << "{}";
  std::ofstream(run / "log.jsonl") << "old run";

  const Outcome refused = run_hetps(tiny_run({"train", "--quiet", "--out", run.string()}));
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.output, HasSubstr("output directory " + run.string() +
                                        " exists; pass --force to replace it"));
  EXPECT_EQ(read_file(run / "log.jsonl"), "old run");

  const Outcome forced =
      run_hetps(tiny_run({"train", "--quiet", "--force", "--out", run.string()}));
  ASSERT_EQ(forced.exit_code, 0) << forced.output;
  EXPECT_NE(read_file(run / "log.jsonl"), "old run");
  EXPECT_NE(read_file(run / "summary.json"), "{}");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(scratch.path()), {}), 1)
      << "the earlier run, moved aside to be replaced, or a staging directory was left behind";
}

TEST(Train, ForceReplacesAnEmptyDirectory) {
  const ScratchDir scratch;
  const auto run = scratch / "run";
  std::filesystem::create_directories(run);
  const Outcome forced =
      run_hetps(tiny_run({"train", "--quiet", "--force", "--out", run.string()}));
  ASSERT_EQ(forced.exit_code, 0) << forced.output;
  EXPECT_TRUE(std::filesystem::exists(run / "summary.json"));
}

// A note of the user's kept in a run's checkpoints/ or report/ is not deleted with the run.
TEST(Train, ForceRefusesARunThatHoldsAnythingElseInItsDirectories) {
  const ScratchDir scratch;
  const auto run = scratch / "run";
  expect_force_keeps_notes(tiny_run({"train", "--quiet", "--force", "--out", run.string()}), run,
                           {"checkpoints/notes.txt", "report/notes.txt"}, "a hetps run directory");
}

// --force replaces earlier outputs only: a mistyped --out must not delete someone's work.
TEST(Train, ForceRefusesWhatIsNotARunDirectory) {
  const ScratchDir scratch;
  const auto work = scratch / "work";
  std::filesystem::create_directories(work);
  std::ofstream(work / "notes.txt") << "mine";
  const Outcome outcome =
      run_hetps(tiny_run({"train", "--quiet", "--force", "--out", work.string()}));
  EXPECT_EQ(outcome.exit_code, 2) << outcome.output;
  EXPECT_THAT(outcome.output,
              HasSubstr("hetps: refusing to replace " + work.string() +
                        ": it is not a hetps run directory (those hold summary.json or "
                        "log.jsonl)"));
  EXPECT_TRUE(std::filesystem::exists(work / "notes.txt"));

  const auto file = scratch / "file";
  std::ofstream(file) << "mine";
  const Outcome on_file =
      run_hetps(tiny_run({"train", "--quiet", "--force", "--out", file.string()}));
  EXPECT_EQ(on_file.exit_code, 2) << on_file.output;
  EXPECT_THAT(on_file.output, HasSubstr("refusing to replace " + file.string()));
  EXPECT_EQ(read_file(file), "mine");
}

// A summary.json alone does not make a run directory: one that also holds files hetps does not
// write there (a project that keeps a copy of a run's summary, say) is never deleted.
TEST(Train, ForceRefusesARunDirectoryThatHoldsAnythingElse) {
  const ScratchDir scratch;
  const auto project = scratch / "project";
  std::filesystem::create_directories(project / "src");
  std::ofstream(project / "summary.json") << "{}";
  std::ofstream(project / "src" / "main.c") << "mine";
  const Outcome outcome =
      run_hetps(tiny_run({"train", "--quiet", "--force", "--out", project.string()}));
  EXPECT_EQ(outcome.exit_code, 2) << outcome.output;
  EXPECT_THAT(outcome.output, HasSubstr("hetps: refusing to replace " + project.string() +
                                        ": it holds src, which is not part of a hetps run "
                                        "directory"));
  EXPECT_EQ(read_file(project / "src" / "main.c"), "mine");
}

TEST(Train, ForceNeverRemovesTheWorkingDirectory) {
  const ScratchDir scratch;
  const auto run = scratch / "run";
  std::filesystem::create_directories(run / "inside");
  std::ofstream(run / "summary.json") << "{}";
  for (const auto& [out, working_dir] :
       {std::pair{std::string("."), run}, std::pair{run.string(), run / "inside"}}) {
    const Outcome outcome =
        run_hetps(tiny_run({"train", "--quiet", "--force", "--out", out}), working_dir);
    EXPECT_EQ(outcome.exit_code, 2) << outcome.output;
    EXPECT_THAT(outcome.output, HasSubstr(": it contains the current working directory"));
    EXPECT_TRUE(std::filesystem::exists(run / "inside")) << out;
  }
}

// The default output is runs/<run name>: a run named ".." would be the working directory.
TEST(Train, RunNameCannotLeaveTheRunsDirectory) {
  const ScratchDir scratch;
  std::ofstream(scratch / "keep.txt") << "mine";
  const Outcome outcome =
      run_hetps(tiny_run({"train", "--quiet", "--force", "--set", "run.name=.."}), scratch.path());
  EXPECT_EQ(outcome.exit_code, 2) << outcome.output;
  EXPECT_THAT(outcome.output,
              HasSubstr("--set run.name=..: run.name must be a string usable as a directory name: "
                        "non-empty, without '/', not \".\" or \"..\", got \"..\""));
  EXPECT_TRUE(std::filesystem::exists(scratch / "keep.txt"));
}

// A config.toml leaves out the default run name, so another protocol names the run anew.
TEST(Train, ConfigTomlWithAnotherProtocolNamesTheRunAfterIt) {
  const ScratchDir scratch;
  ASSERT_EQ(
      run_hetps(tiny_run({"train", "--quiet", "--out", (scratch / "first").string()})).exit_code,
      0);
  const Outcome asp =
      run_hetps({"train", "--quiet", "--config", (scratch / "first" / "config.toml").string(),
                 "--set", "protocol.name=asp", "--out", (scratch / "asp").string()});
  ASSERT_EQ(asp.exit_code, 0) << asp.output;
  EXPECT_THAT(asp.output, ::testing::StartsWith("asp: final accuracy "));
  EXPECT_EQ(summary_without_wall_clock(scratch / "asp").at("run_name"), "asp");
}

TEST(Compare, WritesOneRunPerProtocolAndSummaryCsv) {
  const ScratchDir scratch;
  const auto out = scratch / "cmp";
  const Outcome outcome =
      run_hetps(tiny_run({"compare", "--protocols", "bsp,asp", "--out", out.string()}));
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  EXPECT_THAT(outcome.output, HasSubstr("speed-up vs bsp"));

  std::ifstream csv(out / "summary.csv");
  std::vector<std::string> lines;
  for (std::string line; std::getline(csv, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_THAT(lines[0], ::testing::StartsWith("run_name,protocol,seed,directory,final_accuracy,"));
  EXPECT_THAT(lines[1], ::testing::StartsWith("bsp,bsp,1,bsp/seed-1,"));
  EXPECT_THAT(lines[2], ::testing::StartsWith("asp,asp,1,asp/seed-1,"));
  for (const char* run : {"bsp/seed-1", "asp/seed-1"}) {
    for (const char* file : {"config.toml", "log.jsonl", "summary.json"}) {
      EXPECT_TRUE(std::filesystem::exists(out / run / file)) << run << "/" << file;
    }
  }
}

// The report says why an entry has no timeline: here its runs were told to keep none.
TEST(Compare, AReportSaysARunToldToKeepNoTimelineKeptNone) {
  const ScratchDir scratch;
  const auto out = scratch / "cmp";
  const Outcome outcome = run_hetps(tiny_run({"compare", "--quiet", "--protocols", "bsp", "--out",
                                              out.string(), "--set", "run.timeline_intervals=0"}));
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  EXPECT_FALSE(std::filesystem::exists(out / "bsp" / "seed-1" / "timeline.csv"));
  std::ifstream in(out / "report" / "report.html");
  const std::string page{std::istreambuf_iterator<char>(in), {}};
  EXPECT_THAT(page, HasSubstr("<h3>bsp</h3>\n<p class=\"notes\">not recorded (its runs set "
                              "<code>run.timeline_intervals = 0</code>)</p>"));
}

// --quiet silences the progress, not the result.
TEST(Compare, QuietPrintsTheTableOnly) {
  const ScratchDir scratch;
  const auto out = scratch / "cmp";
  const Outcome outcome =
      run_hetps(tiny_run({"compare", "--quiet", "--protocols", "bsp,asp", "--out", out.string()}));
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  EXPECT_THAT(outcome.output, ::testing::StartsWith("run "));
  EXPECT_THAT(outcome.output, HasSubstr("speed-up vs bsp"));
  EXPECT_THAT(outcome.output, HasSubstr("\nbsp "));
  EXPECT_THAT(outcome.output, HasSubstr("\nasp "));
  EXPECT_THAT(outcome.output,
              ::testing::EndsWith("\nruns and summary.csv in " + out.string() +
                                  "\nreport: " + (out / "report" / "report.html").string() + "\n"));
  // How finely the times to target are read, under the rows (train.eval_interval's default).
  EXPECT_THAT(outcome.output,
              HasSubstr("\ntimes to target are read at the evaluations, every 2 s "
                        "of engine time (train.eval_interval) and at each run's end\n\nruns and"));
  // The header, its rule, two rows, the evaluations' grid, a blank line, where the files are and
  // the report: no progress lines.
  EXPECT_EQ(std::count(outcome.output.begin(), outcome.output.end(), '\n'), 8) << outcome.output;
}

// A report that fails (here a gnuplot that always fails) leaves the comparison done but fails
// the command, and the command it suggests writes the report that was asked for: with the same
// timeline window.
TEST(Compare, AFailedReportsHintRepeatsTheTimelineWindow) {
  const ScratchDir scratch;
  std::filesystem::create_directories(scratch / "bin");
  const auto gnuplot = scratch / "bin" / "gnuplot";
  std::ofstream(gnuplot) << "#!/bin/sh\nexit 3\n";
  std::filesystem::permissions(gnuplot, std::filesystem::perms::owner_all);
  const std::string path = std::getenv("PATH");
  setenv("PATH", ((scratch / "bin").string() + ":" + path).c_str(), 1);
  const auto out = scratch / "cmp";
  const Outcome outcome = run_hetps(tiny_run({"compare", "--quiet", "--protocols", "bsp", "--out",
                                              out.string(), "--timeline-window", "1.5:2"}));
  setenv("PATH", path.c_str(), 1);
  ASSERT_EQ(outcome.exit_code, 1) << outcome.output;
  EXPECT_THAT(outcome.output, HasSubstr("hetps: error: the report was not written: "));
  EXPECT_TRUE(std::filesystem::exists(out / "summary.csv"));
  EXPECT_THAT(outcome.output,
              HasSubstr("run: hetps report " + out.string() + " --timeline-window 1.5:2\n"));
}

TEST(Compare, ForceRefusesWhatIsNotAComparison) {
  const ScratchDir scratch;
  const auto run = scratch / "run";
  std::filesystem::create_directories(run);
  std::ofstream(run / "summary.json") << "{}";
  const Outcome outcome = run_hetps(
      tiny_run({"compare", "--quiet", "--force", "--protocols", "bsp", "--out", run.string()}));
  EXPECT_EQ(outcome.exit_code, 2) << outcome.output;
  EXPECT_THAT(outcome.output,
              HasSubstr("refusing to replace " + run.string() +
                        ": it is not a hetps comparison (those hold summary.csv or compare.json)"));
  EXPECT_TRUE(std::filesystem::exists(run / "summary.json"));
}

// --force replaces an earlier output only when all of it, at any depth, is what hetps writes:
// a note kept in a run of the comparison, or in its report, is never deleted with it.
TEST(Compare, ForceRefusesAComparisonThatHoldsAnythingElseAtAnyDepth) {
  const ScratchDir scratch;
  const auto out = scratch / "cmp";
  expect_force_keeps_notes(
      tiny_run({"compare", "--quiet", "--force", "--protocols", "bsp", "--out", out.string()}), out,
      {"bsp/seed-1/notes.txt", "bsp/seed-1/checkpoints/notes.txt", "report/notes.txt"},
      "a hetps comparison");
}

TEST(Compare, EntrySettingsNameTheRunAndSharedParametersApplyWhereKnown) {
  const ScratchDir scratch;
  const auto out = scratch / "cmp";
  const Outcome outcome =
      run_hetps(tiny_run({"compare", "--quiet", "--protocols", "bsp,ssp,ssp:staleness=7", "--seeds",
                          "2", "--set", "protocol.staleness=5", "--out", out.string()}));
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  EXPECT_THAT(read_file(out / "ssp" / "seed-2" / "config.toml"), HasSubstr("\nstaleness = 5\n"));
  EXPECT_THAT(read_file(out / "ssp_staleness_7" / "seed-1" / "config.toml"),
              HasSubstr("\nstaleness = 7\n"));
  EXPECT_THAT(read_file(out / "ssp_staleness_7" / "seed-1" / "config.toml"),
              HasSubstr("\n[run]\nname = \"ssp:staleness=7\"\n"));
  EXPECT_THAT(read_file(out / "bsp" / "seed-2" / "config.toml"), HasSubstr("\nseed = 2\n"));
  const nlohmann::json summary =
      nlohmann::json::parse(read_file(out / "ssp_staleness_7" / "seed-2" / "summary.json"));
  EXPECT_EQ(summary.at("run_name"), "ssp:staleness=7");
  EXPECT_EQ(summary.at("seed"), 2);
}

// A shared parameter that would do nothing in an entry (ParamSpec::only_with) is skipped there,
// as a parameter the entry's protocol lacks is.
TEST(Compare, SharedParametersAreSkippedWhereTheyWouldDoNothing) {
  const ScratchDir scratch;
  const auto out = scratch / "cmp";
  const Outcome outcome = run_hetps(
      tiny_run({"compare", "--quiet", "--protocols", "sync_switch,sync_switch:momentum_rule=zero",
                "--set", "protocol.ramp_steps=7", "--out", out.string()}));
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  EXPECT_THAT(read_file(out / "sync_switch" / "seed-1" / "config.toml"),
              HasSubstr("\nramp_steps = 7\n"));
  EXPECT_THAT(read_file(out / "sync_switch_momentum_rule_zero" / "seed-1" / "config.toml"),
              HasSubstr("\nramp_steps = 200\n"));
}

// A shared default does nothing anywhere, and is taken, as `train` takes it.
TEST(Compare, ASharedDefaultEveryEntryOverridesIsTaken) {
  const ScratchDir scratch;
  const Outcome outcome =
      run_hetps(tiny_run({"compare", "--quiet", "--protocols", "bsp,ssp:staleness=8", "--set",
                          "protocol.staleness=3", "--out", (scratch / "cmp").string()}));
  EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
}

}  // namespace
}  // namespace hetps::cli
