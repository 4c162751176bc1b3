#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/input_error.h"
#include "report/plot_data.h"
#include "report/run_reader.h"
#include "report_files.h"

namespace hetps::report {
namespace {

using testing::fixture;
using ::testing::HasSubstr;
using testing::lines_of;
using testing::read_text;
using testing::ScratchDirectory;
using testing::write_text;

std::string error_reading(const std::vector<std::filesystem::path>& directories) {
  try {
    read_runs(directories);
  } catch (const ReportInputError& error) {
    return error.what();
  }
  ADD_FAILURE() << "read_runs accepted what it should refuse";
  return "";
}

TEST(RunReaderTest, ReadsAComparisonInTheOrderOfItsSummaryCsv) {
  const std::vector<RunRecord> runs = read_runs({fixture("compare-bsp-asp")});
  ASSERT_EQ(runs.size(), 4u);
  const std::pair<std::string, uint64_t> expected[] = {
      {"bsp", 1}, {"bsp", 2}, {"asp", 1}, {"asp", 2}};
  for (size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(runs[i].entry, expected[i].first);
    EXPECT_EQ(runs[i].summary.seed, expected[i].second);
    EXPECT_EQ(runs[i].directory, fixture("compare-bsp-asp") / expected[i].first /
                                     ("seed-" + std::to_string(expected[i].second)));
    // Every line of the log is an evaluation here: a baseline protocol logs no event.
    EXPECT_EQ(runs[i].evaluations.size(), lines_of(runs[i].directory / "log.jsonl").size());
    EXPECT_TRUE(runs[i].events.empty());
    EXPECT_EQ(runs[i].setting.scenario, "hetero-compute");
    EXPECT_EQ(runs[i].setting.workers, 3);
    EXPECT_EQ(runs[i].setting.data, "synthetic");
    EXPECT_EQ(runs[i].setting.eval_interval, 0.05);
  }
  const nlohmann::json asp2 = nlohmann::json::parse(read_text(runs[3].directory / "summary.json"));
  EXPECT_EQ(runs[3].summary.final_accuracy, asp2.at("final_accuracy").get<double>());
  EXPECT_EQ(runs[3].summary.bytes_to_server, asp2.at("bytes_to_server").get<int64_t>());
  EXPECT_FALSE(runs[2].summary.time_to_target.has_value());  // asp seed 1 missed it
}

TEST(RunReaderTest, ReadsATrainRunWithItsEventsAndStalenessHistogram) {
  const std::vector<RunRecord> runs = read_runs({fixture("sapus")});
  ASSERT_EQ(runs.size(), 1u);
  const RunRecord& sapus = runs.front();
  EXPECT_EQ(sapus.entry, "sapus");
  EXPECT_EQ(sapus.evaluations.size() + sapus.events.size(),
            lines_of(fixture("sapus") / "log.jsonl").size());
  EXPECT_EQ(sapus.events.front().type, "threshold");
  EXPECT_EQ(sapus.events.front().time, 0.0);
  ASSERT_TRUE(sapus.staleness_recorded);
  const nlohmann::json summary =
      nlohmann::json::parse(read_text(fixture("sapus") / "summary.json"));
  int64_t updates = 0;
  for (const auto& bucket : summary.at("staleness_histogram"))
    updates += bucket.at("updates").get<int64_t>();
  EXPECT_EQ(sapus.summary.staleness_histogram.total_updates(), updates);
}

TEST(RunReaderTest, ASummaryFromBeforeTheHistogramReadsAsNotRecorded) {
  const std::vector<RunRecord> runs = read_runs({fixture("sync-switch-old")});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_FALSE(runs.front().staleness_recorded);
  EXPECT_EQ(runs.front().summary.staleness_histogram.total_updates(), 0);
}

TEST(RunReaderTest, AMissingSummaryIsNamed) {
  const ScratchDirectory scratch;
  const auto run = scratch.copy_fixture("sapus", "sapus");
  std::filesystem::remove(run / "summary.json");
  EXPECT_THAT(error_reading({run}),
              HasSubstr((run / "summary.json").string() + ": missing or unreadable"));
}

TEST(RunReaderTest, ABrokenLogLineIsNamedByFileAndLine) {
  const ScratchDirectory scratch;
  const auto run = scratch.copy_fixture("sapus", "sapus");
  std::vector<std::string> lines = lines_of(run / "log.jsonl");
  lines[2] = lines[2].substr(0, lines[2].size() / 2);  // cut off as by a full disk
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  write_text(run / "log.jsonl", text);
  EXPECT_THAT(error_reading({run}), HasSubstr((run / "log.jsonl").string() +
                                              ":3: expected a JSON object (one record a line): "));
}

// A run whose loss diverged logs it as null: read as NaN, and left out of the loss curve.
TEST(RunReaderTest, ADivergedLossReadsAsNaNAndLeavesTheLossCurve) {
  const ScratchDirectory scratch;
  const auto run = scratch.copy_fixture("sapus", "sapus");
  nlohmann::json last = nlohmann::json::parse(lines_of(run / "log.jsonl").back());
  ASSERT_EQ(last.at("type"), "eval");
  last["train_loss"] = nullptr;
  write_text(run / "log.jsonl", read_text(run / "log.jsonl") + last.dump() + "\n");
  const std::vector<RunRecord> runs = read_runs({run});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_TRUE(std::isnan(runs[0].evaluations.back().train_loss));
  const auto& evaluations = runs[0].evaluations;
  const auto trained = std::count_if(evaluations.begin(), evaluations.end(),
                                     [](const Evaluation& e) { return e.samples > 0; });
  EXPECT_EQ(static_cast<std::ptrdiff_t>(loss_curve(runs[0]).size()), trained - 1)
      << "every trained evaluation but the diverged one";
}

TEST(RunReaderTest, ALogRecordWithoutItsTimeIsNamedByFileAndLine) {
  const ScratchDirectory scratch;
  const auto run = scratch.copy_fixture("sync-switch-old", "run");
  write_text(run / "log.jsonl", read_text(run / "log.jsonl") + "{\"type\": \"phase\"}\n");
  const size_t line = lines_of(run / "log.jsonl").size();
  EXPECT_THAT(error_reading({run}),
              HasSubstr(fmt::format("{}:{}: expected a \"time\" number in this phase record",
                                    (run / "log.jsonl").string(), line)));
}

// Found by hand: a negative time reached gnuplot, which refused the plot's range naming
// neither file; a negative sample count was read as a huge one.
TEST(RunReaderTest, ALogRecordBeforeTheStartOrOfNegativeSamplesIsNamedByFileAndLine) {
  const ScratchDirectory scratch;
  const auto run = scratch.copy_fixture("sync-switch-old", "run");
  const std::string log = read_text(run / "log.jsonl");
  const size_t line = lines_of(run / "log.jsonl").size() + 1;
  write_text(run / "log.jsonl", log + "{\"type\": \"phase\", \"time\": -0.5}\n");
  EXPECT_THAT(error_reading({run}),
              HasSubstr(fmt::format("{}:{}: expected a \"time\" of 0 s or more in this phase "
                                    "record, got -0.5",
                                    (run / "log.jsonl").string(), line)));
  write_text(run / "log.jsonl", log +
                                    "{\"type\": \"eval\", \"time\": 1, \"samples\": -4, "
                                    "\"test_accuracy\": 0.5, \"train_loss\": 1}\n");
  EXPECT_THAT(error_reading({run}),
              HasSubstr(fmt::format("{}:{}: expected a \"samples\" whole number >= 0 in this eval "
                                    "record",
                                    (run / "log.jsonl").string(), line)));
}

TEST(RunReaderTest, ASummaryFieldOfTheWrongKindIsNamed) {
  const ScratchDirectory scratch;
  const auto run = scratch.copy_fixture("sapus", "sapus");
  nlohmann::json summary = nlohmann::json::parse(read_text(run / "summary.json"));
  summary["final_accuracy"] = "high";
  write_text(run / "summary.json", summary.dump());
  EXPECT_THAT(error_reading({run}),
              HasSubstr((run / "summary.json").string() +
                        ": \"final_accuracy\" must be a number, got \"high\""));

  // Found by hand: 4e9 workers were read as -294967296.
  summary =
      nlohmann::json::parse(read_text(scratch.copy_fixture("sapus", "again") / "summary.json"));
  for (const int64_t workers : {int64_t{4'000'000'000}, int64_t{0}}) {
    summary["workers"] = workers;
    write_text(run / "summary.json", summary.dump());
    EXPECT_THAT(error_reading({run}),
                HasSubstr((run / "summary.json").string() +
                          ": \"workers\" must be a whole number from 1 to 2^31 - 1, got " +
                          std::to_string(workers)));
  }
}

TEST(RunReaderTest, ADirectoryThatIsNoRunIsNamed) {
  const ScratchDirectory scratch;
  EXPECT_THAT(error_reading({scratch.path()}),
              HasSubstr(scratch.path().string() + ": not a hetps run directory: expected "
                                                  "summary.csv (from hetps compare) or"));
  EXPECT_THAT(error_reading({scratch / "absent"}),
              HasSubstr((scratch / "absent").string() + ": not a directory"));
}

TEST(RunReaderTest, AComparisonNotFinishedSaysHowToFinishIt) {
  const ScratchDirectory scratch;
  const auto comparison = scratch.copy_fixture("compare-bsp-asp", "cmp");
  std::filesystem::remove(comparison / "summary.csv");
  write_text(comparison / "compare.json", "{}");
  EXPECT_THAT(error_reading({comparison}),
              HasSubstr(comparison.string() +
                        ": a comparison that has not finished (it has no "
                        "summary.csv yet): finish it with `hetps compare "
                        "--resume " +
                        comparison.string() + "`"));
}

TEST(RunReaderTest, ARunTheSummaryCsvListsMustExist) {
  const ScratchDirectory scratch;
  const auto comparison = scratch.copy_fixture("compare-bsp-asp", "cmp");
  std::filesystem::remove_all(comparison / "asp" / "seed-2");
  EXPECT_THAT(error_reading({comparison}),
              HasSubstr((comparison / "summary.csv").string() + ":5: run directory " +
                        (comparison / "asp/seed-2").string() + " does not exist"));
}

TEST(RunReaderTest, TwoComparisonsOfTheSameRunsAreToldApartByTheirDirectories) {
  const ScratchDirectory scratch;
  const auto first = scratch.copy_fixture("compare-bsp-asp", "cmp-a");
  const auto second = scratch.copy_fixture("compare-bsp-asp", "cmp-b");
  const std::vector<RunRecord> runs = read_runs({first, second / ""});
  ASSERT_EQ(runs.size(), 8u);
  EXPECT_EQ(runs[0].entry, "cmp-a/bsp");
  EXPECT_EQ(runs[7].entry, "cmp-b/asp");
  // Named alike in different places, they are told apart by as much of their paths as it takes.
  std::filesystem::create_directories(scratch.path() / "x");
  std::filesystem::create_directories(scratch.path() / "y");
  const auto x = scratch.copy_fixture("compare-bsp-asp", "x/cmp");
  const auto y = scratch.copy_fixture("compare-bsp-asp", "y/cmp");
  const std::vector<RunRecord> alike = read_runs({x, y});
  EXPECT_EQ(alike[0].entry, "x/cmp/bsp");
  EXPECT_EQ(alike[7].entry, "y/cmp/asp");
  // Two runs of one comparison that name one entry and seed cannot be told apart.
  std::string summary = read_text(x / "bsp" / "seed-2" / "summary.json");
  summary.replace(summary.find("\"seed\": 2"), 9, "\"seed\": 1");
  write_text(x / "bsp" / "seed-2" / "summary.json", summary);
  EXPECT_THAT(error_reading({x}), HasSubstr("are both run \"cmp/bsp\" seed 1 of one comparison: "
                                            "a report cannot tell them apart"));
  // Through a link, "link/../y/cmp" is another directory than "y/cmp" (helper 84): named by
  // where it is, not by how it is spelt.
  std::filesystem::create_directories(scratch.path() / "deep" / "sub");
  std::filesystem::create_directories(scratch.path() / "deep" / "y");
  scratch.copy_fixture("compare-bsp-asp", "deep/y/cmp");
  std::filesystem::create_directory_symlink(scratch.path() / "deep" / "sub",
                                            scratch.path() / "link");
  const std::vector<RunRecord> linked =
      read_runs({y, scratch.path() / "link" / ".." / "y" / "cmp"});
  EXPECT_EQ(linked[0].entry, scratch.path().filename().string() + "/y/cmp/bsp");
  EXPECT_EQ(linked[4].entry, "deep/y/cmp/bsp");
}

// Found by a probe: two `train` runs of ssp with staleness 0 and 50 read as two seeds of one
// entry, and the report averaged them.
TEST(RunReaderTest, RunsNamedAlikeButTrainedDifferentlyAreNoSeedsOfOneEntry) {
  const ScratchDirectory scratch;
  const auto first = scratch.copy_fixture("sapus", "a");
  const auto second = scratch.copy_fixture("sapus", "b");
  const auto replace = [](const std::filesystem::path& file, const std::string& from,
                          const std::string& to) {
    std::string text = read_text(file);
    const size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    write_text(file, text.replace(at, from.size(), to));
  };
  replace(second / "config.toml", "seed = 1", "seed = 2");
  replace(second / "summary.json", "\"seed\": 1", "\"seed\": 2");
  replace(second / "config.toml", "dir = \"data\"", "dir = \"elsewhere\"");
  std::vector<RunRecord> runs = read_runs({first, second});
  EXPECT_EQ(runs[0].entry, "sapus");  // seeds of one setting: one entry
  EXPECT_EQ(runs[1].entry, "sapus");
  replace(second / "config.toml", "lr = 0.05", "lr = 0.2");
  runs = read_runs({first, second});
  EXPECT_EQ(runs[0].entry, "a/sapus");
  EXPECT_EQ(runs[1].entry, "b/sapus");
  // With data.name = "idx", data.dir is the data set.
  replace(second / "config.toml", "lr = 0.2", "lr = 0.05");
  replace(first / "config.toml", "name = \"synthetic\"", "name = \"idx\"");
  replace(second / "config.toml", "name = \"synthetic\"", "name = \"idx\"");
  runs = read_runs({first, second});
  EXPECT_EQ(runs[0].entry, "a/sapus");
  EXPECT_EQ(runs[1].entry, "b/sapus");
  replace(second / "config.toml", "dir = \"elsewhere\"", "dir = \"data\"");
  EXPECT_EQ(read_runs({first, second})[1].entry, "sapus");
  // The seeds of one comparison stay one entry, even where a newer hetps that resumed it wrote
  // a setting more.
  const auto comparison = scratch.copy_fixture("compare-bsp-asp", "cmp");
  replace(comparison / "bsp" / "seed-2" / "config.toml", "[train]\n", "[train]\nnew_key = 1\n");
  EXPECT_EQ(read_runs({comparison})[1].entry, "bsp");
  // Named alike in different places, they are told apart by more of their paths.
  replace(first / "config.toml", "name = \"idx\"", "name = \"synthetic\"");
  std::filesystem::create_directories(scratch.path() / "x");
  const auto third = scratch.copy_fixture("sapus", "x/a");
  replace(third / "config.toml", "lr = 0.05", "lr = 0.1");
  replace(third / "summary.json", "\"seed\": 1", "\"seed\": 3");
  runs = read_runs({first, third});
  EXPECT_EQ(runs[0].entry, scratch.path().filename().string() + "/a/sapus");
  EXPECT_EQ(runs[1].entry, "x/a/sapus");
}

TEST(RunReaderTest, ADirectoryGivenTwiceIsNamed) {
  const ScratchDirectory scratch;
  const auto runs = scratch.copy_fixture("compare-bsp-asp", "cmp");
  EXPECT_THAT(error_reading({runs, scratch.path() / "." / "cmp" / ""}),
              HasSubstr(runs.string() + " and " + (scratch.path() / "." / "cmp" / "").string() +
                        " are the same directory: give it once"));
  // Found by hand: a comparison and one of its runs beside it plotted that run twice.
  EXPECT_THAT(error_reading({runs, runs / "asp" / "seed-1"}),
              HasSubstr((runs / "asp/seed-1").string() + " and " +
                        (runs / "asp" / "seed-1").string() + " are the same run: give it once"));
}

}  // namespace
}  // namespace hetps::report
