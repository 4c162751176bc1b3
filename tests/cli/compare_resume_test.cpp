// `hetps compare --resume DIR`: a stopped comparison goes on from its plan, keeping the runs it
// finished and running the others again; what --resume does not take, a finished comparison and
// a broken plan are refused with what is wrong. The stop is made by removing what a killed
// comparison would not have written (its summary.csv, the unfinished run's summary.json), so
// that the test does not depend on when a signal lands.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/compare_plan.h"
#include "cli/hetps_process.h"

namespace hetps::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::Outcome;
using testing::read_file;
using testing::run_hetps;
using testing::ScratchDir;
using testing::summary_without_wall_clock;
using testing::tiny_run;

// A finished comparison of bsp and asp, one seed each, in `scratch`/cmp.
std::filesystem::path finished_comparison(const ScratchDir& scratch) {
  const auto out = scratch / "cmp";
  const Outcome first =
      run_hetps(tiny_run({"compare", "--quiet", "--protocols", "bsp,asp", "--out", out.string()}));
  EXPECT_EQ(first.exit_code, 0) << first.output;
  return out;
}

TEST(CompareResume, KeepsTheFinishedRunsAndRunsTheUnfinishedOneAgain) {
  const ScratchDir scratch;
  const auto out = finished_comparison(scratch);
  const std::string bsp_summary = read_file(out / "bsp/seed-1/summary.json");
  const nlohmann::json asp_summary = summary_without_wall_clock(out / "asp/seed-1");
  const std::string csv = read_file(out / "summary.csv");

  // As a kill during asp's run leaves it: no summary.csv or report, asp half written.
  std::filesystem::remove(out / "summary.csv");
  std::filesystem::remove_all(out / "report");
  std::filesystem::remove(out / "asp/seed-1/summary.json");
  std::ofstream(out / "asp/seed-1/log.jsonl", std::ios::app) << "{\"half\": ";

  const Outcome resumed = run_hetps({"compare", "--resume", out.string()});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_THAT(resumed.output, HasSubstr("[1/2] bsp seed 1: finished before, kept"));
  EXPECT_THAT(resumed.output, HasSubstr("speed-up vs bsp"));
  // bsp was not run again (its wall seconds would differ); asp ran again, whole, to the same end.
  EXPECT_EQ(read_file(out / "bsp/seed-1/summary.json"), bsp_summary);
  EXPECT_EQ(summary_without_wall_clock(out / "asp/seed-1"), asp_summary);
  EXPECT_THAT(read_file(out / "asp/seed-1/log.jsonl"), ::testing::Not(HasSubstr("half")));
  std::ifstream lines(out / "summary.csv");
  int rows = 0;
  for (std::string line; std::getline(lines, line);) ++rows;
  EXPECT_EQ(rows, 3);
  EXPECT_TRUE(std::filesystem::exists(out / "report/report.html"));
}

// A run to start again replaces what its stopped run left as --force would: not a file of the
// user's put there, nor one in the place of its directory.
TEST(CompareResume, AnUnfinishedRunHoldingWhatNoRunWritesIsRefused) {
  const ScratchDir scratch;
  const auto out = finished_comparison(scratch);
  std::filesystem::remove(out / "summary.csv");
  std::filesystem::remove(out / "asp/seed-1/summary.json");
  std::ofstream(out / "asp/seed-1/notes.txt") << "mine";

  const Outcome kept = run_hetps({"compare", "--quiet", "--resume", out.string()});
  EXPECT_EQ(kept.exit_code, 2) << kept.output;
  EXPECT_THAT(kept.output, HasSubstr("refusing to replace " + (out / "asp/seed-1").string() +
                                     ": it holds notes.txt, which is not part of a hetps run "
                                     "directory; move it away yourself, then resume again"));
  EXPECT_EQ(read_file(out / "asp/seed-1/notes.txt"), "mine");

  std::filesystem::remove_all(out / "asp");
  std::ofstream(out / "asp") << "mine";
  const Outcome damaged = run_hetps({"compare", "--quiet", "--resume", out.string()});
  EXPECT_EQ(damaged.exit_code, 2) << damaged.output;
  EXPECT_THAT(damaged.output, HasSubstr((out / "asp/seed-1").string()));
  EXPECT_THAT(damaged.output, HasSubstr("Not a directory"));
  EXPECT_EQ(read_file(out / "asp"), "mine");
}

// A comparison still going holds its directory: a resume of it is refused at once, before it
// runs anything again.
TEST(CompareResume, AComparisonStillGoingRefusesAResume) {
  const ScratchDir scratch;
  const auto out = scratch / "cmp";
  // After tiny_run's settings, whose budget these replace.
  std::vector<std::string> endless =
      tiny_run({"compare", "--quiet", "--protocols", "bsp", "--out", out.string()});
  for (const char* set : {"train.max_samples=1000000000", "run.checkpoint_interval=0.25"}) {
    endless.push_back("--set");
    endless.push_back(set);
  }
  Outcome resumed;
  const int status = testing::interrupt_after_checkpoints(
      endless, out / "bsp" / "seed-1", 1, scratch / "going.out", [&] {
        resumed = run_hetps({"compare", "--resume", out.string()});
      });
  ASSERT_EQ(status, 130) << read_file(scratch / "going.out");
  EXPECT_EQ(resumed.exit_code, 2) << resumed.output;
  EXPECT_THAT(resumed.output, HasSubstr("hetps: " + out.string() +
                                        ": another hetps process is writing this "
                                        "directory"));
  EXPECT_THAT(resumed.output, Not(HasSubstr("seed 1")));
}

TEST(CompareResume, RefusesOtherFlagsAFinishedComparisonAndADirectoryWithoutAPlan) {
  const ScratchDir scratch;
  const auto out = scratch / "cmp";
  ASSERT_EQ(run_hetps(tiny_run({"compare", "--quiet", "--protocols", "bsp", "--out", out.string()}))
                .exit_code,
            0);
  const Outcome finished = run_hetps({"compare", "--resume", out.string()});
  EXPECT_EQ(finished.exit_code, 2);
  EXPECT_THAT(finished.output, HasSubstr("the comparison has finished (it holds summary.csv)"));
  EXPECT_THAT(finished.output, HasSubstr("is written by: hetps report " + out.string()));

  std::filesystem::remove(out / "summary.csv");
  const Outcome with_seeds = run_hetps({"compare", "--resume", out.string(), "--seeds", "2"});
  EXPECT_EQ(with_seeds.exit_code, 2);
  EXPECT_THAT(with_seeds.output, HasSubstr("it takes no --protocols, --seeds, --config"));

  const Outcome no_plan = run_hetps({"compare", "--resume", scratch.path().string()});
  EXPECT_EQ(no_plan.exit_code, 2);
  EXPECT_THAT(no_plan.output, HasSubstr("not a comparison directory (it holds no compare.json)"));

  // The same comparison started again says how to go on with the stopped one.
  const Outcome again =
      run_hetps(tiny_run({"compare", "--quiet", "--protocols", "bsp", "--out", out.string()}));
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_THAT(again.output, HasSubstr("holds a comparison that did not finish; continue it with "
                                      "hetps compare --resume " +
                                      out.string()));

  const Outcome no_protocols = run_hetps({"compare"});
  EXPECT_EQ(no_protocols.exit_code, 2);
  EXPECT_THAT(no_protocols.output, HasSubstr("--protocols is required"));
}

TEST(CompareResume, ABrokenPlanIsNamedWithWhatIsWrong) {
  const ScratchDir scratch;
  const auto out = scratch / "cmp";
  std::filesystem::create_directories(out);
  std::ofstream(out / kComparePlanFile) << "{";
  Outcome outcome = run_hetps({"compare", "--resume", out.string()});
  EXPECT_EQ(outcome.exit_code, 2);
  EXPECT_THAT(outcome.output, HasSubstr((out / kComparePlanFile).string() + ": not JSON"));

  std::ofstream(out / kComparePlanFile)
      << R"({"format": 1, "runs": [{"config": "[train]\nlr = \"fast\"\n"}]})";
  outcome = run_hetps({"compare", "--resume", out.string()});
  EXPECT_EQ(outcome.exit_code, 2);
  EXPECT_THAT(outcome.output, HasSubstr("runs[0].config"));
  EXPECT_THAT(outcome.output, HasSubstr("train.lr"));

  std::ofstream(out / kComparePlanFile) << R"({"format": 7, "runs": []})";
  outcome = run_hetps({"compare", "--resume", out.string()});
  EXPECT_EQ(outcome.exit_code, 2);
  EXPECT_THAT(outcome.output,
              HasSubstr((out / kComparePlanFile).string() + ": format must be 1, got 7"));

  // Its structure edited: each field is named with what it must be, never a library's text.
  const std::string plan = (out / kComparePlanFile).string();
  for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
           {R"({"format": 1, "runs": [{}]})", plan + ": runs[0].config is missing"},
           {R"({"format": 1, "runs": [{"config": 7}]})",
            plan + ": runs[0].config must be a string, got 7"},
           {R"({"format": 1, "runs": {}})", plan + ": runs must be a list of runs, got {}"},
           {R"({"format": "1", "runs": []})", plan + ": format must be 1, got \"1\""},
           {R"({"format": 1, "runs": [{"config": ""}, {"config": "[train]\nlr = 0.1\n"}]})",
            plan + ": runs[0] and runs[1] are the same run (run.name and seed), bsp/seed-1"},
           {R"([1])", plan + ": the plan must be a JSON object, got [1]"},
           {R"({"format": 1, "runs": [{"config": "", "inputs": 3}]})",
            plan + ": runs[0].inputs must be an object, got 3"},
           {R"({"format": 1, "runs": [{"config": "", "inputs": {"cluster.trace": "x"}}]})",
            plan + ": runs[0].inputs.cluster.trace must be an object, got \"x\""}}) {
    std::ofstream(out / kComparePlanFile) << text;
    outcome = run_hetps({"compare", "--resume", out.string()});
    EXPECT_EQ(outcome.exit_code, 2) << text;
    EXPECT_THAT(outcome.output, HasSubstr(message)) << text;
    EXPECT_THAT(outcome.output, Not(HasSubstr("json.exception"))) << text;
  }
}

// The plan keeps the report's window; a run's directory follows from its config (whose run name
// the config's rules keep inside the comparison), never from the plan's text.
TEST(CompareResume, ThePlanKeepsTheTimelineWindowAndNoDirectories) {
  const ScratchDir scratch;
  const auto out = scratch / "cmp";
  const Outcome first = run_hetps(tiny_run({"compare", "--quiet", "--protocols", "bsp",
                                            "--timeline-window", "1.5:", "--out", out.string()}));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_TRUE(std::filesystem::exists(out / "bsp/seed-1/summary.json"));
  const nlohmann::json plan = nlohmann::json::parse(read_file(out / kComparePlanFile));
  EXPECT_EQ(plan.at("timeline_window"), "1.5:");
  EXPECT_FALSE(plan.at("runs").at(0).contains("directory"));

  std::filesystem::remove(out / "summary.csv");
  const Outcome resumed = run_hetps({"compare", "--resume", out.string()});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_THAT(resumed.output, HasSubstr("[1/1] bsp seed 1: finished before, kept"));
}

// A file the runs name (here a trace) changed since the comparison started: the runs it kept
// would not compare with those still to run, so the resume is refused, naming it.
TEST(CompareResume, AFileTheRunsNameChangedSinceTheStartIsRefused) {
  const ScratchDir scratch;
  const auto out = scratch / "cmp";
  const auto trace = scratch / "trace.csv";
  std::ofstream(trace) << "time,worker,speed\n0,0,1\n";
  const Outcome first =
      run_hetps(tiny_run({"compare", "--quiet", "--protocols", "bsp,asp", "--out", out.string(),
                          "--set", "cluster.trace=" + trace.string()}));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  std::filesystem::remove(out / "summary.csv");  // as a kill during asp's run leaves it
  std::filesystem::remove(out / "asp/seed-1/summary.json");
  std::ofstream(trace) << "time,worker,speed\n0,0,0.5\n";
  const Outcome changed = run_hetps({"compare", "--resume", out.string()});
  EXPECT_EQ(changed.exit_code, 2) << changed.output;
  EXPECT_THAT(changed.output,
              HasSubstr("cluster.trace (" + trace.string() +
                        ") holds other contents than when the comparison started (run "
                        "bsp/seed-1)"));
  std::ofstream(trace) << "time,worker,speed\n0,0,1\n";
  const Outcome restored = run_hetps({"compare", "--resume", out.string()});
  EXPECT_EQ(restored.exit_code, 0) << restored.output;
}

// A file missing when the comparison started (its first run failed on it) is no change: once
// it is there, the comparison goes on.
TEST(CompareResume, AFileMissingAtTheStartAndPutThereAfterIsTaken) {
  const ScratchDir scratch;
  const auto out = scratch / "cmp";
  const auto trace = scratch / "trace.csv";
  const Outcome missing =
      run_hetps(tiny_run({"compare", "--quiet", "--protocols", "bsp", "--out", out.string(),
                          "--set", "cluster.trace=" + trace.string()}));
  ASSERT_NE(missing.exit_code, 0) << missing.output;
  ASSERT_TRUE(std::filesystem::exists(out / kComparePlanFile)) << missing.output;
  std::ofstream(trace) << "time,worker,speed\n0,0,1\n";
  const Outcome resumed = run_hetps({"compare", "--resume", out.string()});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
}

}  // namespace
}  // namespace hetps::cli
