#include "report/html_report.h"

#include <algorithm>
#include <set>
#include <string>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "config/atomic_file.h"
#include "report/html.h"
#include "report/plot_data.h"
#include "report/report.h"
#include "report/results_table.h"
#include "report/timeline_plot.h"

namespace hetps::report {
namespace {

namespace fs = std::filesystem;

constexpr const char* kStyle = R"(
body { font-family: sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ccc; }
figure { margin: 1em 0; } figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption, .notes, .setting { color: #555; font-size: 0.9em; }
.histograms { display: flex; flex-wrap: wrap; gap: 1em; }
.histograms figure { margin: 0; }
table { border-collapse: collapse; font-size: 0.9em; }
.scrolls { overflow-x: auto; }
th, td { border: 1px solid #ddd; padding: 0.3em 0.6em; text-align: right; white-space: nowrap; }
th { background: #f4f4f4; } td:first-child, th:first-child { text-align: left; }
.range { color: #777; font-size: 0.85em; }
.swatch { display: inline-block; width: 0.8em; height: 0.8em; margin-right: 0.4em; }
)";

const PlotScript* find_plot(const std::vector<PlotScript>& plots, const std::string& name) {
  const auto plot =
      std::find_if(plots.begin(), plots.end(), [&](const PlotScript& p) { return p.name == name; });
  return plot == plots.end() ? nullptr : &*plot;
}

std::string figure(const fs::path& directory, const PlotScript& plot, const std::string& alt,
                   const std::string& caption) {
  return fmt::format(
      "<figure><img src=\"{}\" alt=\"{}\"><figcaption>{} Drawn by <a href=\"{}\">{}</a> "
      "(<a href=\"{}\">{}</a>).</figcaption></figure>\n",
      svg_data_uri(directory / plot.svg()), escape_html(alt), caption, plot.script(), plot.script(),
      plot.svg(), plot.svg());
}

// One line when every run ran on the same setting, else a warning: the table compares
// protocols only when the cluster, model, data and target are the same.
std::string setting_line(const std::vector<RunRecord>& runs) {
  const auto key = [](const RunRecord& run) {
    const RunSetting& s = run.setting;
    return std::tie(s.engine, s.scenario, s.workers, s.model, s.data, run.summary.target_accuracy);
  };
  std::set<std::tuple<std::string, std::string, int64_t, std::string, std::string, double>>
      settings;
  for (const RunRecord& run : runs) settings.insert(key(run));
  if (settings.size() > 1) {
    return "<p class=\"setting\"><strong>The runs differ in engine, scenario, workers, model, "
           "data or target accuracy</strong> (see <a href=\"#runs\">the runs</a>): their figures "
           "compare more than protocols.</p>\n";
  }
  const RunSetting& s = runs.front().setting;
  return fmt::format(
      "<p class=\"setting\">{} runs · scenario <b>{}</b> · {} workers · model {} on {} · "
      "engine {} · target accuracy {}</p>\n",
      runs.size(), escape_html(s.scenario.empty() ? "(none)" : s.scenario), s.workers,
      escape_html(s.model), escape_html(s.data), escape_html(s.engine),
      runs.front().summary.target_accuracy);
}

std::string curves_section(const std::vector<PlotScript>& plots, const fs::path& directory) {
  const std::string marks =
      "Each colour is an entry, each of its seeds a line; open marks are its protocol events, "
      "one shape a type (key at the right).";
  std::string html = "<h2 id=\"accuracy\">Test accuracy against time</h2>\n";
  if (const PlotScript* plot = find_plot(plots, "accuracy")) {
    html += figure(directory, *plot, "test accuracy against time",
                   marks + " The dashed line is the target accuracy. Data: <a href=\"" +
                       kAccuracyData + "\">" + kAccuracyData + "</a>, <a href=\"" + kEventData +
                       "\">" + kEventData + "</a>.");
  }
  html += "<h2 id=\"loss\">Training loss against time</h2>\n";
  const PlotScript* loss = find_plot(plots, "loss");
  if (loss == nullptr) return html + "<p>No run applied an update: no training loss.</p>\n";
  return html + figure(directory, *loss, "training loss against time",
                       marks +
                           " The loss is the mean over the samples applied since the "
                           "previous evaluation. Data: <a href=\"" +
                           kLossData + "\">" + kLossData + "</a>.");
}

std::string staleness_section(const Comparison& comparison, const std::vector<PlotScript>& plots,
                              const fs::path& directory) {
  std::string figures;
  std::string missing;
  for (size_t e = 0; e < comparison.entries.size(); ++e) {
    const EntryResults& entry = comparison.entries[e];
    const std::string name = escape_html(entry.entry);
    const PlotScript* plot = find_plot(plots, staleness_plot_name(e));
    if (plot != nullptr) {
      const std::string seeds =
          entry.staleness_seeds == static_cast<int>(entry.runs.size())
              ? fmt::format("{} seed{}", entry.runs.size(), entry.runs.size() == 1 ? "" : "s")
              : fmt::format("the {} of {} seeds that recorded them", entry.staleness_seeds,
                            entry.runs.size());
      figures += figure(directory, *plot, "staleness of " + entry.entry,
                        fmt::format("{}: {} contributions over {}.", name,
                                    entry.staleness.total_updates(), seeds));
    } else if (entry.staleness_seeds == 0) {
      missing += fmt::format(
          "<li>{}: not recorded (summaries from a hetps before the staleness "
          "histogram)</li>\n",
          name);
    } else {
      missing += fmt::format("<li>{}: no update applied</li>\n", name);
    }
  }
  return fmt::format(
      "<h2 id=\"staleness\">Staleness</h2>\n"
      "<p class=\"setting\">The share of the workers' contributions to applied updates (a "
      "round of n workers, BSP's or a Petrel community's, is n) by how many versions the "
      "server had moved on since their base (exact up to {}, one bar for more). Data: <a "
      "href=\"{}\">{}</a>.</p>\n<div class=\"histograms\">\n{}</div>\n{}",
      metrics::StalenessHistogram::kOverflowStaleness - 1, kStalenessData, kStalenessData, figures,
      missing.empty() ? "" : "<ul>\n" + missing + "</ul>\n");
}

// "2nd", "4th", "32nd": the stride of a sampled timeline in words.
std::string ordinal(int64_t n) {
  const int64_t last_two = n % 100;
  if (last_two >= 11 && last_two <= 13) return fmt::format("{}th", n);
  const int64_t last = n % 10;
  return fmt::format("{}{}", n, last == 1 ? "st" : last == 2 ? "nd" : last == 3 ? "rd" : "th");
}

// One entry's timeline: its figure, or why there is none. The exact window and stride are in
// data-* attributes, for a reader or a test to take back.
std::string timeline_figure(const std::optional<EntryTimeline>& timeline, size_t e,
                            const EntryResults& entry, const std::vector<PlotScript>& plots,
                            const fs::path& directory) {
  const std::string name = escape_html(entry.entry);
  if (!timeline) {
    const bool turned_off = std::all_of(entry.runs.begin(), entry.runs.end(),
                                        [](const auto* run) { return run->setting.timeline_off; });
    return fmt::format(
        "<div class=\"timeline\" data-entry=\"{0}\"><h3>{0}</h3>\n<p class=\"notes\">not recorded "
        "({1})</p></div>\n",
        name,
        turned_off ? "its runs set <code>run.timeline_intervals = 0</code>"
                   : "runs of a hetps from before the per-worker timeline");
  }
  const metrics::Summary& s = timeline->run->summary;
  const int64_t stride = timeline->run->timeline->cycle_stride;
  std::string caption = fmt::format(
      "Seed {}, {} workers: {:.4g} s to {:.4g} s of the run's {:.4g} s ({}).", s.seed, s.workers,
      timeline->start, timeline->end, s.total_time,
      timeline->chosen ? std::string("the window chosen with --timeline-window")
                       : fmt::format("the default window: about {} cycles of its slowest worker",
                                     kDefaultWindowCycles));
  if (stride > 1) {
    caption += fmt::format(
        " After the first {} cycles of each worker, every {} cycle is shown: the engine sampled "
        "the cycles to bound its memory, and the gaps between them are not sampled.",
        timeline->run->timeline->whole_cycles, ordinal(stride));
  }
  const PlotScript* plot = find_plot(plots, timeline_plot_name(e));
  const std::string body =
      plot == nullptr
          ? "<p class=\"notes\">" + caption + " Nothing was recorded in this window" +
                (timeline->start >= s.total_time ? ": it starts at or after the run's end" : "") +
                ".</p>\n"
          : figure(directory, *plot, "per-worker timeline of " + entry.entry,
                   fmt::format("{} Data: <a href=\"{}.csv\">{}.csv</a>.", caption, plot->name,
                               plot->name));
  return fmt::format(
      "<div class=\"timeline\" data-entry=\"{0}\" data-seed=\"{1}\" data-start=\"{2}\" "
      "data-end=\"{3}\" data-cycle-stride=\"{4}\"><h3>{0}</h3>\n{5}</div>\n",
      name, s.seed, timeline->start, timeline->end, stride, body);
}

std::string timeline_section(const Comparison& comparison, const std::vector<PlotScript>& plots,
                             const std::vector<std::optional<EntryTimeline>>& timelines,
                             const fs::path& directory) {
  const bool chosen =
      std::any_of(timelines.begin(), timelines.end(), [](const auto& t) { return t && t->chosen; });
  std::string html = fmt::format(
      "<h2 id=\"timeline\">Per-worker timeline</h2>\n"
      "<p class=\"setting\">Where each worker spent its time in one run of each entry (its first "
      "seed that recorded it): a lane per worker, worker 0 at the top, coloured by activity: "
      "<b>compute</b>, <b>straggle</b> (computing during one of the worker's straggler "
      "episodes), <b>communicate</b> (a model or an update on the wire) and <b>wait</b> (for the "
      "server's reply: a barrier, a staleness bound, a queue; or a leader waiting for its "
      "members). White is no record: before the worker's first reply, after it stopped, or a "
      "cycle not sampled. Each pixel column shows the activity that filled most of it; the CSV "
      "beside each plot holds the exact intervals. {} Choose the window with "
      "<code>--timeline-window START:END</code> (seconds; END left out: to the run's end) on "
      "<code>hetps report</code> or <code>hetps compare</code>.</p>\n",
      chosen ? "The window shown is the one chosen with <code>--timeline-window</code>."
             : fmt::format("The window shown runs from 0 to about {} cycles of the entry's "
                           "slowest worker, at most to the run's end.",
                           kDefaultWindowCycles));
  for (size_t e = 0; e < comparison.entries.size(); ++e)
    html += timeline_figure(timelines[e], e, comparison.entries[e], plots, directory);
  return html;
}

std::string runs_section(const std::vector<RunRecord>& runs) {
  std::string rows;
  for (const RunRecord& run : runs) {
    const metrics::Summary& s = run.summary;
    rows += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{:.1f}</td><td>{:.1f}</td></tr>\n",
        escape_html(run.entry), s.seed, escape_html(run.directory.string()),
        escape_html(run.setting.engine), escape_html(run.setting.scenario), run.setting.workers,
        escape_html(run.setting.model + " on " + run.setting.data),
        run.setting.eval_interval > 0 ? fmt::format("{:g}", run.setting.eval_interval) : "?",
        escape_html(s.stop_reason), s.total_time, s.wall_seconds);
  }
  return "<h2 id=\"runs\">Runs</h2>\n<div "
         "class=\"scrolls\"><table>\n<tr><th>entry</th><th>seed</th><th>directory</th>"
         "<th>engine</th><th>scenario</th><th>workers</th><th>model on data</th><th>evaluated "
         "every (s)</th><th>stopped at</th><th>total time (s)</th><th>wall time (s)</th></tr>\n" +
         rows + "</table></div>\n";
}

}  // namespace

void write_html_report(const Comparison& comparison, const std::vector<RunRecord>& runs,
                       const std::vector<PlotScript>& plots,
                       const std::vector<std::optional<EntryTimeline>>& timelines,
                       const fs::path& directory) {
  const std::string page = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>hetps report</title>\n<style>{}</style>\n</head>\n<body>\n"
      "<h1>hetps comparison report</h1>\n{}{}"
      "<h2 id=\"results\">Results</h2>\n{}{}{}{}</body>\n</html>\n",
      kStyle, setting_line(runs), curves_section(plots, directory), results_table_html(comparison),
      staleness_section(comparison, plots, directory),
      timeline_section(comparison, plots, timelines, directory), runs_section(runs));
  config::write_file_atomically(directory / kReportPage, page, "report page");
}

}  // namespace hetps::report
