// The report built from the committed fixtures: every plot drawn, every CSV complete, and the
// table's numbers those of the summaries, read back out of report.html.
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include <map>
#include <numeric>
#include <set>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/gnuplot.h"
#include "report/report.h"
#include "report_files.h"

namespace hetps::report {
namespace {

namespace fs = std::filesystem;
using testing::fixture;
using ::testing::HasSubstr;
using testing::lines_of;
using ::testing::Not;
using testing::read_text;
using testing::ScratchDirectory;
using testing::write_text;

// The fixtures' runs, by entry in the report's order: the summaries and logs as JSON.
struct FixtureRun {
  nlohmann::json summary;
  std::vector<nlohmann::json> log;
};

const std::vector<std::pair<std::string, std::vector<fs::path>>>& fixture_entries() {
  static const std::vector<std::pair<std::string, std::vector<fs::path>>> entries = {
      {"bsp", {fixture("compare-bsp-asp/bsp/seed-1"), fixture("compare-bsp-asp/bsp/seed-2")}},
      {"asp", {fixture("compare-bsp-asp/asp/seed-1"), fixture("compare-bsp-asp/asp/seed-2")}},
      {"sapus", {fixture("sapus")}},
      {"sync_switch", {fixture("sync-switch-old")}}};
  return entries;
}

std::vector<FixtureRun> runs_of(const std::vector<fs::path>& directories) {
  std::vector<FixtureRun> runs;
  for (const fs::path& directory : directories) {
    FixtureRun run{nlohmann::json::parse(read_text(directory / "summary.json")), {}};
    std::istringstream log(read_text(directory / "log.jsonl"));
    for (std::string line; std::getline(log, line);) run.log.push_back(nlohmann::json::parse(line));
    runs.push_back(std::move(run));
  }
  return runs;
}

// A cell of the results table: its text and its data-* attributes.
struct Cell {
  std::string text;
  std::map<std::string, std::string> data;
};

// The pieces of `text` between each `open` and the `close` after it. (std::regex recurses per
// character and overflows the stack on the page's data: URIs.)
std::vector<std::string> between(std::string_view text, std::string_view open,
                                 std::string_view close) {
  std::vector<std::string> pieces;
  for (size_t at = text.find(open); at != std::string_view::npos; at = text.find(open, at)) {
    const size_t begin = at + open.size();
    const size_t end = text.find(close, begin);
    if (end == std::string_view::npos) break;
    pieces.emplace_back(text.substr(begin, end - begin));
    at = end + close.size();
  }
  return pieces;
}

// entry -> column -> cell, parsed out of the page's
//   <tr data-entry="E"><td data-column="C" data-value="V" ...>TEXT</td>...</tr>
std::map<std::string, std::map<std::string, Cell>> results_table(const std::string& page) {
  const size_t begin = page.find("<table id=\"results-table\">");
  EXPECT_NE(begin, std::string::npos);
  const std::string table = page.substr(begin, page.find("</table>", begin) - begin);
  std::map<std::string, std::map<std::string, Cell>> rows;
  for (const std::string& row : between(table, "<tr data-entry=\"", "</tr>")) {
    const std::string entry = row.substr(0, row.find('"'));
    for (const std::string& cell : between(row, "<td data-column=\"", "</td>")) {
      const std::string column = cell.substr(0, cell.find('"'));
      const size_t text = cell.find('>') + 1;
      Cell parsed{cell.substr(text), {}};
      const std::string attributes = cell.substr(0, text);
      for (size_t at = attributes.find(" data-"); at != std::string::npos;
           at = attributes.find(" data-", at + 1)) {
        const size_t name = at + 6;
        const size_t value = attributes.find("=\"", name) + 2;
        parsed.data[attributes.substr(name, value - 2 - name)] =
            attributes.substr(value, attributes.find('"', value) - value);
      }
      rows[entry][column] = parsed;
    }
  }
  return rows;
}

// Whether gnuplot drew the first thing plotted (a curve's line or a histogram's bars), not
// only axes: the SVG groups each plotted item as <g id="gnuplot_plot_N">.
bool first_plot_drawn(const std::string& svg) {
  const size_t begin = svg.find("<g id=\"gnuplot_plot_1\"");
  if (begin == std::string::npos) return false;
  const std::string item = svg.substr(begin, svg.find("<g id=\"gnuplot_plot_2\"") - begin);
  return item.find("<path") != std::string::npos || item.find("<polygon") != std::string::npos;
}

double mean(const std::vector<double>& values) {
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

// entry -> attribute -> value, from the page's
//   <div class="timeline" data-entry="E" data-seed="1" data-start="0" data-end="0.4" ...>
std::map<std::string, std::map<std::string, std::string>> timeline_attributes(
    const std::string& page) {
  std::map<std::string, std::map<std::string, std::string>> timelines;
  for (const std::string& tag : between(page, "<div class=\"timeline\" ", ">")) {
    std::map<std::string, std::string> attributes;
    for (const std::string& name : between(" " + tag, " data-", "=\"")) {
      const std::string open = "data-" + name + "=\"";
      const size_t value = tag.find(open) + open.size();
      attributes[name] = tag.substr(value, tag.find('"', value) - value);
    }
    timelines[attributes.at("entry")] = attributes;
  }
  return timelines;
}

// The intervals of a timeline CSV (timeline.csv's columns), as numbers.
std::vector<std::vector<double>> timeline_rows(const fs::path& file) {
  std::vector<std::vector<double>> rows;
  const std::vector<std::string> lines = lines_of(file);
  EXPECT_EQ(lines.at(0), "worker,cycle,activity,start_s,end_s") << file;
  for (size_t i = 1; i < lines.size(); ++i) {
    std::vector<double> row;
    std::istringstream in(lines[i]);
    for (std::string cell; std::getline(in, cell, ',');) {
      row.push_back(row.size() == 2 ? static_cast<double>(*activity_named(cell)) : std::stod(cell));
    }
    rows.push_back(row);
  }
  return rows;
}

// The window the report shows by default, worked out from the file: 20 mean cycles of the
// slowest worker (from the start of its first cycle to that of its last), at most the run.
double default_window_end(const std::vector<std::vector<double>>& rows, double total_time) {
  std::map<double, std::vector<std::vector<double>>> by_worker;
  for (const auto& row : rows) by_worker[row[0]].push_back(row);
  double slowest = 0;
  for (const auto& [worker, own] : by_worker) {
    const auto last_cycle = std::find_if(own.begin(), own.end(),
                                         [&](const auto& row) { return row[1] == own.back()[1]; });
    slowest = std::max(slowest,
                       ((*last_cycle)[3] - own.front()[3]) / ((*last_cycle)[1] - own.front()[1]));
  }
  return std::min(20 * slowest, total_time);
}

class ReportTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!find_gnuplot()) return;
    // One directory per process: ctest runs each of these tests in its own, in parallel.
    out_ = new fs::path(fs::path(::testing::TempDir()) /
                        ("hetps-report-ReportTest-" + std::to_string(getpid())));
    fs::remove_all(*out_);
    fs::create_directories(*out_);
    runs_ = new std::vector<RunRecord>(
        read_runs({fixture("compare-bsp-asp"), fixture("sapus"), fixture("sync-switch-old")}));
    page_ = new fs::path(build_report(*runs_, *out_));
  }
  static void TearDownTestSuite() {
    if (out_ != nullptr) fs::remove_all(*out_);
    delete out_;
    delete page_;
    delete runs_;
  }
  void SetUp() override {
    if (out_ == nullptr) GTEST_SKIP() << "gnuplot is not installed (scripts/install-deps.sh)";
  }

  static fs::path* out_;
  static fs::path* page_;
  static std::vector<RunRecord>* runs_;
};

fs::path* ReportTest::out_ = nullptr;
fs::path* ReportTest::page_ = nullptr;
std::vector<RunRecord>* ReportTest::runs_ = nullptr;

TEST_F(ReportTest, EveryPlotIsAnSvgWithDataDrawn) {
  EXPECT_EQ(*page_, *out_ / "report.html");
  // sync_switch's run predates the histogram and the timeline: no staleness or timeline plot
  // for entry 4.
  for (const char* plot : {"accuracy", "loss", "staleness-1", "staleness-2", "staleness-3",
                           "timeline-1", "timeline-2", "timeline-3"}) {
    std::string svg = read_text(*out_ / (std::string(plot) + ".svg"));
    svg.erase(svg.find_last_not_of(" \n") + 1);  // gnuplot ends it with blank lines
    // Checked piece by piece: a failure prints the plot's name, not its 30 kB.
    EXPECT_TRUE(svg.starts_with("<?xml")) << plot;
    EXPECT_NE(svg.find("<svg"), std::string::npos) << plot;
    EXPECT_TRUE(svg.ends_with("</svg>")) << plot;
    EXPECT_TRUE(first_plot_drawn(svg)) << plot;
    EXPECT_TRUE(fs::exists(*out_ / (std::string(plot) + ".gp"))) << plot;
  }
  EXPECT_FALSE(fs::exists(*out_ / "staleness-4.svg"));
  EXPECT_FALSE(fs::exists(*out_ / "timeline-4.svg"));
}

TEST_F(ReportTest, EveryCsvHasItsHeaderAndARowPerRecord) {
  size_t evaluations = 0;
  size_t trained_evaluations = 0;
  size_t events = 0;
  size_t buckets = 0;
  for (const auto& [entry, directories] : fixture_entries()) {
    std::set<int64_t> stalenesses;
    for (const FixtureRun& run : runs_of(directories)) {
      for (const nlohmann::json& record : run.log) {
        const bool eval = record.at("type") == "eval";
        evaluations += eval;
        trained_evaluations += eval && record.at("samples").get<int64_t>() > 0;
        events += !eval;
      }
      for (const auto& bucket : run.summary.value("staleness_histogram", nlohmann::json::array()))
        stalenesses.insert(bucket.at("staleness").get<int64_t>());
    }
    buckets += stalenesses.size();
  }
  const auto expect_csv = [&](const char* file, const char* header, size_t rows) {
    const std::vector<std::string> lines = lines_of(*out_ / file);
    ASSERT_FALSE(lines.empty()) << file;
    EXPECT_EQ(lines.front(), header) << file;
    EXPECT_EQ(lines.size() - 1, rows) << file;
  };
  expect_csv("accuracy.csv", "entry_index,seed,time,test_accuracy,entry", evaluations);
  expect_csv("loss.csv", "entry_index,seed,time,train_loss,entry", trained_evaluations);
  expect_csv("events.csv", "entry_index,seed,type_index,time,test_accuracy,train_loss,entry,type",
             events);
  expect_csv("staleness.csv", "entry_index,staleness,or_more,updates,share,entry", buckets);
  EXPECT_GT(events, 0u);
}

// The mark of an event sits on the drawn curve: straight between the evaluations around it.
TEST_F(ReportTest, AnEventIsMarkedWhereTheCurveIsAtItsTime) {
  const FixtureRun sync = runs_of({fixture("sync-switch-old")}).front();
  const auto phase = std::find_if(sync.log.begin(), sync.log.end(),
                                  [](const auto& r) { return r.at("type") == "phase"; });
  ASSERT_NE(phase, sync.log.end());
  const double time = phase->at("time");
  const auto after = std::find_if(sync.log.begin(), sync.log.end(), [&](const auto& r) {
    return r.at("type") == "eval" && r.at("time").template get<double>() > time;
  });
  const auto before = std::find_if(std::make_reverse_iterator(after), sync.log.rend(),
                                   [](const auto& r) { return r.at("type") == "eval"; });
  const double t0 = before->at("time"), t1 = after->at("time");
  const double a0 = before->at("test_accuracy"), a1 = after->at("test_accuracy");
  const double expected = a0 + (time - t0) / (t1 - t0) * (a1 - a0);
  const std::vector<std::string> lines = lines_of(*out_ / "events.csv");
  const auto row = std::find_if(lines.begin(), lines.end(), [](const std::string& line) {
    return line.starts_with("4,") && line.ends_with(",sync_switch,phase");
  });
  ASSERT_NE(row, lines.end());
  std::vector<std::string> cells;
  std::istringstream in(*row);
  for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
  EXPECT_EQ(std::stod(cells[3]), time);
  EXPECT_DOUBLE_EQ(std::stod(cells[4]), expected);
}

TEST_F(ReportTest, TheTableNumbersAreTheSummaries) {
  const auto table = results_table(read_text(*page_));
  ASSERT_EQ(table.size(), fixture_entries().size());
  const auto value = [&](const std::string& entry, const std::string& column) {
    return std::stod(table.at(entry).at(column).data.at("value"));
  };
  double bsp_time = 0;
  bool bsp_reached_on_every_seed = false;
  for (const auto& [entry, directories] : fixture_entries()) {
    SCOPED_TRACE(entry);
    const std::vector<FixtureRun> runs = runs_of(directories);
    const auto over_seeds = [&](const auto& figure) {
      std::vector<double> values;
      for (const FixtureRun& run : runs) values.push_back(figure(run.summary));
      return values;
    };
    const auto field = [&](const char* name) {
      return over_seeds([name](const nlohmann::json& s) { return s.at(name).get<double>(); });
    };
    for (const char* column : {"final_accuracy", "best_accuracy", "bytes_to_server",
                               "bytes_from_server", "bytes_worker_to_worker", "mean_staleness"}) {
      const std::vector<double> values = field(column);
      EXPECT_DOUBLE_EQ(value(entry, column), mean(values)) << column;
      EXPECT_EQ(std::stod(table.at(entry).at(column).data.at("min")),
                *std::min_element(values.begin(), values.end()))
          << column;
      EXPECT_EQ(std::stod(table.at(entry).at(column).data.at("max")),
                *std::max_element(values.begin(), values.end()))
          << column;
    }
    EXPECT_EQ(value(entry, "seeds"), static_cast<double>(runs.size()));
    const std::vector<double> maxima = field("max_staleness");
    EXPECT_EQ(value(entry, "max_staleness"), *std::max_element(maxima.begin(), maxima.end()));
    EXPECT_DOUBLE_EQ(value(entry, "samples_per_second"),
                     mean(over_seeds([](const nlohmann::json& s) {
                       return s.at("samples").get<double>() / s.at("total_time").get<double>();
                     })));
    std::vector<double> times;
    for (const FixtureRun& run : runs) {
      if (!run.summary.at("time_to_target").is_null())
        times.push_back(run.summary.at("time_to_target"));
    }
    EXPECT_EQ(value(entry, "reached"), static_cast<double>(times.size()));
    if (times.empty()) {
      EXPECT_EQ(table.at(entry).at("time_to_target").text, "not reached");
      EXPECT_EQ(table.at(entry).at("speed_up").data.count("value"), 0u);
      continue;
    }
    EXPECT_DOUBLE_EQ(value(entry, "time_to_target"), mean(times));
    // To the hundredth, as an evaluation grid of 0.25 s needs.
    EXPECT_THAT(table.at(entry).at("time_to_target").text,
                ::testing::StartsWith(fmt::format("{:.2f} s", mean(times))));
    if (entry == "bsp") {
      bsp_time = mean(times);
      bsp_reached_on_every_seed = times.size() == runs.size();
    }
    // Over only the seeds that reached the target, a speed-up would flatter.
    if (times.size() < runs.size() || !bsp_reached_on_every_seed) {
      EXPECT_EQ(table.at(entry).at("speed_up").data.count("value"), 0u);
      continue;
    }
    EXPECT_DOUBLE_EQ(value(entry, "speed_up"), bsp_time / mean(times));
    EXPECT_EQ(table.at(entry).at("speed_up").text, fmt::format("{:.2f}×", bsp_time / mean(times)));
  }
  // The shown figures are the exact ones rounded, with the seeds' range where they differ.
  const Cell& bsp_final = table.at("bsp").at("final_accuracy");
  EXPECT_EQ(bsp_final.text,
            fmt::format("{:.4f} <span class=\"range\">({:.4f}–{:.4f})</span>",
                        std::stod(bsp_final.data.at("value")), std::stod(bsp_final.data.at("min")),
                        std::stod(bsp_final.data.at("max"))));
}

TEST_F(ReportTest, EventsAreCountedByTypeAndRareOnesMarked) {
  const std::string page = read_text(*page_);
  const auto table = results_table(page);
  for (const auto& [entry, directories] : fixture_entries()) {
    std::map<std::string, std::vector<double>> counts;
    const std::vector<FixtureRun> runs = runs_of(directories);
    for (const char* type : {"phase", "push", "threshold"}) {
      std::vector<double> per_seed;
      for (const FixtureRun& run : runs) {
        per_seed.push_back(static_cast<double>(std::count_if(
            run.log.begin(), run.log.end(), [&](const auto& r) { return r.at("type") == type; })));
      }
      EXPECT_EQ(std::stod(table.at(entry).at(std::string("events:") + type).data.at("value")),
                mean(per_seed))
          << entry << " " << type;
    }
  }
  // SaPus logs a push per update: too many to mark; its threshold changes are few.
  EXPECT_THAT(page, HasSubstr("Marked on the curves: phase, threshold; a type logged more"));
  EXPECT_THAT(read_text(*out_ / "accuracy.gp"), HasSubstr("title 'threshold'"));
  EXPECT_THAT(read_text(*out_ / "accuracy.gp"), Not(HasSubstr("title 'push'")));
}

TEST_F(ReportTest, ThePageIsSelfContainedAndSaysWhatItLacks) {
  const std::string page = read_text(*page_);
  const std::vector<std::string> sources = between(page, "<img src=\"", "\"");
  // accuracy, loss, three staleness histograms, three timelines
  ASSERT_EQ(sources.size(), 8u);
  for (const std::string& source : sources)
    EXPECT_THAT(source, ::testing::StartsWith("data:image/svg+xml;base64,PD94bWwg"));  // "<?xml "
  // Nothing to fetch: every link is to a file beside the page or within it.
  for (const std::string& target : between(page, "href=\"", "\""))
    EXPECT_TRUE(target.starts_with("#") || fs::exists(*out_ / target)) << target;
  EXPECT_THAT(page, HasSubstr("<h3>sync_switch</h3>\n<p class=\"notes\">not recorded (runs of "
                              "a hetps from before the per-worker timeline)</p>"));
  EXPECT_THAT(page, HasSubstr("<li>sync_switch: not recorded (summaries from a hetps before the "
                              "staleness histogram)</li>"));
  EXPECT_THAT(page, HasSubstr("6 runs · scenario <b>hetero-compute</b> · 3 workers"));
}

// Each entry's timeline is its first seed's, over 0 to about 20 cycles of its slowest worker;
// its CSV holds the run's intervals cut to that window.
TEST_F(ReportTest, EachTimelineIsTheFirstSeedsOverTheDefaultWindow) {
  const std::string page = read_text(*page_);
  const auto timelines = timeline_attributes(page);
  ASSERT_EQ(timelines.size(), fixture_entries().size());
  for (size_t e = 0; e < 3; ++e) {  // sync_switch, the fourth, recorded none
    const auto& [entry, directories] = fixture_entries()[e];
    SCOPED_TRACE(entry);
    const auto& shown = timelines.at(entry);
    const FixtureRun first = runs_of({directories.front()}).front();
    EXPECT_EQ(shown.at("seed"), first.summary.at("seed").dump());
    EXPECT_EQ(shown.at("cycle-stride"), "1");
    const auto rows = timeline_rows(directories.front() / "timeline.csv");
    const double start = std::stod(shown.at("start"));
    const double end = std::stod(shown.at("end"));
    EXPECT_EQ(start, 0);
    EXPECT_DOUBLE_EQ(end, default_window_end(rows, first.summary.at("total_time")));
    std::vector<std::vector<double>> inside;
    for (std::vector<double> row : rows) {
      row[3] = std::max(row[3], start);
      row[4] = std::min(row[4], end);
      if (row[4] > row[3]) inside.push_back(row);
    }
    EXPECT_EQ(timeline_rows(*out_ / fmt::format("timeline-{}.csv", e + 1)), inside);
  }
  EXPECT_EQ(timelines.at("sync_switch").count("start"), 0u);
  EXPECT_THAT(page, HasSubstr("(the default window: about 20 cycles of its slowest worker)"));
  EXPECT_THAT(page, HasSubstr("Choose the window with <code>--timeline-window START:END</code>"));
}

// A run name is the user's text: it reaches the page escaped and the plots quoted.
TEST(ReportNames, ARunNameWithMarkupAndQuotesIsEscaped) {
  if (!find_gnuplot()) GTEST_SKIP() << "gnuplot is not installed (scripts/install-deps.sh)";
  const ScratchDirectory scratch;
  const fs::path run = scratch.copy_fixture("sapus", "run");
  nlohmann::json summary = nlohmann::json::parse(read_text(run / "summary.json"));
  summary["run_name"] = "<b>it's \"mine\" & co</b>";
  write_text(run / "summary.json", summary.dump());
  fs::create_directories(scratch / "report");
  const std::string page = read_text(build_report(read_runs({run}), scratch / "report"));
  EXPECT_THAT(page, HasSubstr("&lt;b&gt;it&#39;s &quot;mine&quot; &amp; co&lt;/b&gt;"));
  EXPECT_THAT(page, Not(HasSubstr("<b>it's")));
  EXPECT_THAT(read_text(scratch / "report" / "accuracy.gp"),
              HasSubstr("title '<b>it''s \"mine\" & co</b>'"));
}

// Runs timed to different targets: the page warns, and no entry gets a speed-up.
TEST(ReportSetting, RunsOfDifferentTargetsAreNotComparedAsProtocols) {
  if (!find_gnuplot()) GTEST_SKIP() << "gnuplot is not installed (scripts/install-deps.sh)";
  const ScratchDirectory scratch;
  std::vector<RunRecord> runs = read_runs({fixture("compare-bsp-asp")});
  const std::string same_target = read_text(build_report(runs, scratch.path(), {}));
  EXPECT_THAT(same_target, HasSubstr(fmt::format(" · target accuracy {}</p>",
                                                 runs.front().summary.target_accuracy)));
  EXPECT_THAT(same_target, HasSubstr("×</td>"));  // a speed-up, as the mixed page must not have
  for (RunRecord& run : runs) {
    if (run.entry == "asp") run.summary.target_accuracy /= 2;
  }
  fs::create_directories(scratch / "mixed");
  const std::string mixed = read_text(build_report(runs, scratch / "mixed", {}));
  EXPECT_THAT(mixed, HasSubstr("The runs differ in engine, scenario, workers, model, data or "
                               "target accuracy"));
  EXPECT_THAT(mixed, Not(HasSubstr("×</td>")));
  EXPECT_THAT(mixed, HasSubstr("No speed-up: the runs have different target accuracies"));
}

// A window the user chose applies to every entry; END left out, it runs to each run's end.
TEST(ReportTimeline, AChosenWindowIsEveryEntrysAndSaysSo) {
  if (!find_gnuplot()) GTEST_SKIP() << "gnuplot is not installed (scripts/install-deps.sh)";
  const ScratchDirectory scratch;
  const std::vector<RunRecord> runs = read_runs({fixture("compare-bsp-asp")});
  const fs::path page =
      build_report(runs, scratch.path(), {.timeline_window = TimelineWindow{0.125, std::nullopt}});
  const std::string text = read_text(page);
  const auto timelines = timeline_attributes(text);
  for (size_t e = 0; e < 2; ++e) {
    const std::string entry = e == 0 ? "bsp" : "asp";
    EXPECT_EQ(timelines.at(entry).at("start"), "0.125") << entry;
    EXPECT_EQ(std::stod(timelines.at(entry).at("end")), runs[2 * e].summary.total_time) << entry;
    for (const auto& row : timeline_rows(scratch / fmt::format("timeline-{}.csv", e + 1))) {
      EXPECT_GE(row[3], 0.125);
      EXPECT_LE(row[4], runs[2 * e].summary.total_time);
    }
  }
  EXPECT_THAT(text, HasSubstr("(the window chosen with --timeline-window)"));
  EXPECT_THAT(text, HasSubstr("The window shown is the one chosen with "
                              "<code>--timeline-window</code>."));
}

// A window so much longer than the run that no activity fills half a pixel column draws an
// empty plot (gnuplot refuses a plot of key entries alone).
TEST(ReportTimeline, AWindowFarLongerThanTheRunDrawsAnEmptyPlot) {
  if (!find_gnuplot()) GTEST_SKIP() << "gnuplot is not installed (scripts/install-deps.sh)";
  const ScratchDirectory scratch;
  const std::vector<RunRecord> runs = read_runs({fixture("compare-bsp-asp")});
  const double longest = std::max(runs[0].summary.total_time, runs[2].summary.total_time);
  build_report(runs, scratch.path(), {.timeline_window = TimelineWindow{0, 10'000 * longest}});
  EXPECT_TRUE(fs::exists(scratch / "timeline-1.svg"));
  EXPECT_TRUE(fs::exists(scratch / "timeline-2.svg"));
}

// A run that sampled its cycles: the page says which it shows; a window with nothing recorded
// has no plot.
TEST(ReportTimeline, ASampledTimelineSaysEveryWhichCycleItShows) {
  if (!find_gnuplot()) GTEST_SKIP() << "gnuplot is not installed (scripts/install-deps.sh)";
  const ScratchDirectory scratch;
  const fs::path run = scratch.copy_fixture("sapus", "sapus");
  std::string kept;
  for (const std::string& line : lines_of(run / "timeline.csv")) {
    std::istringstream in(line);
    std::string worker, cycle;
    std::getline(in, worker, ',');
    std::getline(in, cycle, ',');
    // The first two cycles whole, then every fourth.
    if (cycle == "cycle" || std::stoi(cycle) <= 2 || (std::stoi(cycle) - 3) % 4 == 0) {
      kept += line + "\n";
    }
  }
  write_text(run / "timeline.csv", kept);
  nlohmann::json summary = nlohmann::json::parse(read_text(run / "summary.json"));
  summary["timeline_cycle_stride"] = 4;
  summary["timeline_whole_cycles"] = 2;
  write_text(run / "summary.json", summary.dump());
  fs::create_directories(scratch / "report");
  const std::string page = read_text(build_report(read_runs({run}), scratch / "report"));
  EXPECT_EQ(timeline_attributes(page).at("sapus").at("cycle-stride"), "4");
  EXPECT_THAT(page, HasSubstr("After the first 2 cycles of each worker, every 4th cycle is shown"));

  fs::create_directories(scratch / "late");
  const std::string late = read_text(build_report(read_runs({run}), scratch / "late",
                                                  {.timeline_window = TimelineWindow{100, 200}}));
  EXPECT_THAT(
      late, HasSubstr("Nothing was recorded in this window: it starts at or after the run's end."));
  EXPECT_FALSE(fs::exists(scratch / "late" / "timeline-1.svg"));
}

}  // namespace
}  // namespace hetps::report
