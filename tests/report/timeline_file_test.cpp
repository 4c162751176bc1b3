// Reading a run's timeline.csv back: the fixtures' as written, its stride from summary.json,
// none for a run from before the timeline, and every kind of bad row named by file and line.
#include <string_view>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/input_error.h"
#include "report/run_reader.h"
#include "report_files.h"

namespace hetps::report {
namespace {

namespace fs = std::filesystem;
using testing::fixture;
using ::testing::HasSubstr;
using testing::lines_of;
using testing::read_text;
using testing::ScratchDirectory;
using testing::write_text;
using namespace std::string_view_literals;

std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> cells;
  std::istringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
  return cells;
}

std::string refusal_of(const fs::path& run) {
  try {
    read_runs({run});
  } catch (const ReportInputError& error) {
    return error.what();
  }
  ADD_FAILURE() << "read_runs accepted what it should refuse";
  return "";
}

void set_summary_field(const fs::path& run, const char* key, const nlohmann::json& value) {
  nlohmann::json summary = nlohmann::json::parse(read_text(run / "summary.json"));
  if (value.is_null()) {
    summary.erase(key);
  } else {
    summary[key] = value;
  }
  write_text(run / "summary.json", summary.dump());
}

TEST(TimelineFileTest, ReadsEveryRowOfTheFixturesTimeline) {
  const fs::path directory = fixture("compare-bsp-asp/bsp/seed-1");
  const std::vector<RunRecord> runs = read_runs({directory});
  ASSERT_EQ(runs.size(), 1u);
  ASSERT_TRUE(runs[0].timeline.has_value());
  const std::vector<std::string> lines = lines_of(directory / "timeline.csv");
  const std::vector<TimelineRow>& intervals = runs[0].timeline->intervals;
  ASSERT_EQ(intervals.size(), lines.size() - 1);
  for (size_t i = 0; i < intervals.size(); ++i) {
    const std::vector<std::string> cells = cells_of(lines[i + 1]);
    const TimelineRow expected{std::stoi(cells[0]), std::stoll(cells[1]), *activity_named(cells[2]),
                               std::stod(cells[3]), std::stod(cells[4])};
    EXPECT_EQ(intervals[i], expected) << "line " << i + 2;
  }
  EXPECT_EQ(runs[0].timeline->cycle_stride, 1);
}

TEST(TimelineFileTest, CrlfLineEndsAndAByteOrderMarkReadAsTheFileWithout) {
  const ScratchDirectory scratch;
  const fs::path run = scratch.copy_fixture("compare-bsp-asp/bsp/seed-1", "run");
  std::string crlf = "\xEF\xBB\xBF";
  for (const std::string& line : lines_of(run / "timeline.csv")) crlf += line + "\r\n";
  write_text(run / "timeline.csv", crlf);
  EXPECT_EQ(read_runs({run})[0].timeline->intervals,
            read_runs({fixture("compare-bsp-asp/bsp/seed-1")})[0].timeline->intervals);
}

TEST(TimelineFileTest, ARunWithoutTimelineCsvHasNoTimeline) {
  const std::vector<RunRecord> runs = read_runs({fixture("sync-switch-old")});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_FALSE(runs[0].timeline.has_value());
}

TEST(TimelineFileTest, TheStrideIsTheSummarysAnd1WhereItSaysNone) {
  const ScratchDirectory scratch;
  const fs::path run = scratch.copy_fixture("sapus", "sapus");
  set_summary_field(run, "timeline_cycle_stride", 4);
  EXPECT_EQ(read_runs({run})[0].timeline->cycle_stride, 4);
  set_summary_field(run, "timeline_cycle_stride", nullptr);
  EXPECT_EQ(read_runs({run})[0].timeline->cycle_stride, 1);
  set_summary_field(run, "timeline_cycle_stride", 0);
  EXPECT_THAT(refusal_of(run),
              HasSubstr((run / "summary.json").string() +
                        ": \"timeline_cycle_stride\" must be a whole number >= 1 (1: every cycle "
                        "kept), got 0"));
}

TEST(TimelineFileTest, TheWholeCyclesAreTheSummarysAnd0WhereItSaysNone) {
  const ScratchDirectory scratch;
  const fs::path run = scratch.copy_fixture("sapus", "sapus");
  EXPECT_EQ(read_runs({run})[0].timeline->whole_cycles, 0);
  set_summary_field(run, "timeline_cycle_stride", 4);
  set_summary_field(run, "timeline_whole_cycles", 100);
  EXPECT_EQ(read_runs({run})[0].timeline->whole_cycles, 100);
  set_summary_field(run, "timeline_whole_cycles", -1);
  EXPECT_THAT(refusal_of(run), HasSubstr((run / "summary.json").string() +
                                         ": \"timeline_whole_cycles\" must be a whole number "
                                         ">= 0, got -1"));
}

struct BadRow {
  const char* what;
  size_t line;  // from 1, the header's
  std::string_view text;
  const char* message;
};

// A good timeline of a 3-worker run, each bad row replacing one of its lines.
constexpr const char* kGoodTimeline[] = {
    "worker,cycle,activity,start_s,end_s",
    "0,1,communicate,0,0.002",
    "0,1,compute,0.002,0.012",
    "0,2,wait,0.012,0.014",
    "0,2,communicate,0.014,0.016",
    "1,1,wait,0,0.004",
    "1,1,communicate,0.004,0.006",
};

constexpr BadRow kBadRows[] = {
    {"header", 1, "worker,cycle,activity,start,end",
     "expected the header \"worker,cycle,activity,start_s,end_s\", got "
     "\"worker,cycle,activity,start,end\""},
    {"unknown activity", 2, "0,1,sleep,0,0.001",
     "activity must be one of compute, straggle, communicate, wait; got \"sleep\""},
    // A control byte is shown, and a NUL does not end the message.
    {"a NUL byte", 2, "0,1,wa\0it,0,0.001"sv,
     "activity must be one of compute, straggle, communicate, wait; got \"wa\\x00it\""},
    {"end before start", 2, "0,1,wait,0.002,0.001", "end_s 0.001 is before start_s 0.002"},
    {"not a number", 2, "0,1,wait,soon,0.001",
     "start_s must be a finite number of seconds >= 0, got \"soon\""},
    {"not finite", 2, "0,1,wait,0,inf",
     "end_s must be a finite number of seconds >= 0, got \"inf\""},
    {"worker of no run", 2, "3,1,wait,0,0.001",
     "worker 3 is not one of the run's 3 workers (summary.json's \"workers\"): expected 0 to 2"},
    {"negative worker", 2, "-1,1,wait,0,0.001", "worker must be a whole number >= 0, got \"-1\""},
    {"cycle 0", 2, "0,0,wait,0,0.001", "cycle must be a whole number >= 1, got \"0\""},
    {"too few cells", 2, "0,1,wait,0",
     "expected 5 cells (worker,cycle,activity,start_s,end_s), got 4"},
    {"overlap", 3, "0,1,compute,0.001,0.012",
     "worker 0 cycle 1 from 0.001 s follows worker 0 cycle 1 until 0.002 s; rows must be sorted "
     "by worker, then start"},
    {"cycle going back", 5, "0,1,communicate,0.014,0.016",
     "worker 0 cycle 1 from 0.014 s follows worker 0 cycle 2 until 0.014 s"},
    {"worker going back", 7, "0,3,wait,0.016,0.02",
     "worker 0 cycle 3 from 0.016 s follows worker 1 cycle 1 until 0.004 s"},
};

TEST(TimelineFileTest, EachKindOfBadRowIsNamedByFileAndLine) {
  const ScratchDirectory scratch;
  for (const BadRow& bad : kBadRows) {
    SCOPED_TRACE(bad.what);
    const fs::path run = scratch.copy_fixture("compare-bsp-asp/bsp/seed-1", bad.what);
    std::vector<std::string> lines(std::begin(kGoodTimeline), std::end(kGoodTimeline));
    lines[bad.line - 1] = bad.text;
    std::string text;
    for (const std::string& line : lines) text += line + "\n";
    write_text(run / "timeline.csv", text);
    EXPECT_THAT(refusal_of(run), HasSubstr(fmt::format("{}:{}: {}", (run / "timeline.csv").string(),
                                                       bad.line, bad.message)));
  }
}

}  // namespace
}  // namespace hetps::report
