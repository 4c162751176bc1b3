#include "report/results_table.h"

#include <algorithm>
#include <functional>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/html.h"
#include "report/plot_data.h"
#include "report/plot_scripts.h"
#include "report/units.h"

namespace hetps::report {
namespace {

using Format = std::function<std::string(double)>;

// The shortest text that reads back as the same double.
std::string exact(double value) { return fmt::format("{}", value); }

std::string fixed(double value, int decimals) { return fmt::format("{:.{}f}", value, decimals); }

// Counts per seed: whole when they are, else one decimal.
std::string count(double value) {
  return value == static_cast<double>(static_cast<int64_t>(value)) ? fixed(value, 0)
                                                                   : fixed(value, 1);
}

std::string cell(std::string_view column, std::string_view attributes, std::string_view text) {
  return fmt::format("<td data-column=\"{}\"{}>{}</td>", escape_html(column), attributes, text);
}

// A whole number shown as it is.
std::string whole_cell(std::string_view column, int64_t value) {
  return cell(column, fmt::format(" data-value=\"{}\"", value), fmt::format("{}", value));
}

// The mean, with the seeds' lowest and highest when they differ.
std::string spread_cell(std::string_view column, const Spread& spread, const Format& format) {
  std::string text = format(spread.mean);
  if (spread.min != spread.max) {
    text += fmt::format(" <span class=\"range\">({}–{})</span>", format(spread.min),
                        format(spread.max));
  }
  return cell(column,
              fmt::format(" data-value=\"{}\" data-min=\"{}\" data-max=\"{}\"", exact(spread.mean),
                          exact(spread.min), exact(spread.max)),
              text);
}

struct Footnote {
  const char* id;
  const char* text;
};

constexpr Footnote kNoBsp = {"no-bsp", "no entry of protocol bsp among the runs"};
constexpr Footnote kBspMissed = {"bsp-missed", "bsp missed the target in one of its seeds or more"};
constexpr Footnote kMissed = {"missed", "this entry missed the target in one of its seeds or more"};
constexpr Footnote kReachedAtStart = {
    "reached-at-start",
    "a seed of this entry or of bsp reached the target at time 0, at the evaluation before "
    "any training: the target is not above its starting accuracy"};
constexpr Footnote kTargetsDiffer = {
    "targets-differ", "the runs have different target accuracies, so their times do not compare"};

const Footnote& footnote_for(NoSpeedUp reason) {
  switch (reason) {
    case NoSpeedUp::kNoBsp:
      return kNoBsp;
    case NoSpeedUp::kBspMissedTarget:
      return kBspMissed;
    case NoSpeedUp::kMissedTarget:
      return kMissed;
    case NoSpeedUp::kReachedAtStart:
      return kReachedAtStart;
    case NoSpeedUp::kTargetsDiffer:
      return kTargetsDiffer;
  }
  return kNoBsp;
}

std::string speed_up_cell(const EntryResults& entry) {
  if (entry.speed_up) {
    return cell("speed_up", fmt::format(" data-value=\"{}\"", exact(*entry.speed_up)),
                fmt::format("{:.2f}×", *entry.speed_up));
  }
  const Footnote& note = footnote_for(entry.no_speed_up);
  return cell("speed_up", "", fmt::format("—<sup><a href=\"#note-{}\">†</a></sup>", note.id));
}

std::string time_to_target_cells(const EntryResults& entry) {
  const int seeds = static_cast<int>(entry.runs.size());
  const int reached = entry.time_to_target ? entry.time_to_target->seeds : 0;
  const std::string time = entry.time_to_target
                               ? spread_cell("time_to_target", *entry.time_to_target,
                                             [](double v) { return fixed(v, 2) + " s"; })
                               : cell("time_to_target", "", "not reached");
  return time + cell("reached", fmt::format(" data-value=\"{}\"", reached),
                     fmt::format("{}/{}", reached, seeds));
}

std::string row(const Comparison& comparison, size_t index) {
  const EntryResults& entry = comparison.entries[index];
  const Format accuracy = [](double v) { return fixed(v, 4); };
  std::string cells =
      cell("entry", fmt::format(" data-value=\"{}\"", escape_html(entry.entry)),
           fmt::format("<span class=\"swatch\" style=\"background:{}\"></span>{}",
                       entry_colour(index), escape_html(entry.entry))) +
      whole_cell("seeds", static_cast<int64_t>(entry.runs.size())) +
      spread_cell("final_accuracy", entry.final_accuracy, accuracy) +
      spread_cell("best_accuracy", entry.best_accuracy, accuracy) + time_to_target_cells(entry) +
      speed_up_cell(entry) +
      spread_cell("samples_per_second", entry.samples_per_second,
                  [](double v) { return fixed(v, 0); }) +
      spread_cell("bytes_to_server", entry.bytes_to_server, format_bytes) +
      spread_cell("bytes_from_server", entry.bytes_from_server, format_bytes) +
      spread_cell("bytes_worker_to_worker", entry.bytes_worker_to_worker, format_bytes) +
      spread_cell("mean_staleness", entry.mean_staleness, [](double v) { return fixed(v, 2); }) +
      whole_cell("max_staleness", entry.max_staleness);
  for (const std::string& type : comparison.event_types)
    cells += spread_cell("events:" + type, entry.events.at(type), count);
  return fmt::format("<tr data-entry=\"{}\">{}</tr>\n", escape_html(entry.entry), cells);
}

std::string header(const Comparison& comparison) {
  std::vector<std::string> headings = {"entry",
                                       "seeds",
                                       "final accuracy",
                                       "best accuracy",
                                       "time to target",
                                       "reached",
                                       "speed-up vs bsp",
                                       "samples/s",
                                       "bytes to server",
                                       "bytes from server",
                                       "worker-to-worker bytes",
                                       "mean staleness",
                                       "max staleness"};
  for (const std::string& type : comparison.event_types) headings.push_back(type + " events");
  std::string cells;
  for (const std::string& heading : headings) cells += "<th>" + escape_html(heading) + "</th>";
  return "<tr>" + cells + "</tr>\n";
}

std::string footnotes(const Comparison& comparison) {
  std::string notes =
      "<li>Each figure is the mean over the entry's seeds, with the lowest and highest in "
      "brackets where they differ; max staleness is the highest of any seed.</li>\n"
      "<li>Time to target: the time of the first evaluation at or above the target accuracy, "
      "over the seeds that reached it (<em>reached</em> says how many). A run evaluates before "
      "training, every train.eval_interval of engine time (the Runs table gives it) and once "
      "more as it ends, off that grid.</li>\n"
      "<li>Speed-up vs bsp: bsp's mean time to target divided by this entry's.</li>\n"
      "<li>samples/s: training samples applied per second of the run's (engine) time.</li>\n";
  std::vector<const Footnote*> used;
  for (const EntryResults& entry : comparison.entries) {
    const Footnote* note = entry.speed_up ? nullptr : &footnote_for(entry.no_speed_up);
    if (note != nullptr && std::find(used.begin(), used.end(), note) == used.end())
      used.push_back(note);
  }
  for (const Footnote* note : used) {
    notes += fmt::format("<li id=\"note-{}\">† No speed-up: {}.</li>\n", note->id, note->text);
  }
  if (!comparison.event_types.empty()) {
    std::vector<std::string> marked;
    for (const std::string& type : marked_event_types(comparison))
      marked.push_back(escape_html(type));
    notes += fmt::format(
        "<li>Events: records of each type in a seed's log.jsonl (all in events.csv). Marked on "
        "the curves: {}; a type logged more than {} times in a run is only counted.</li>\n",
        marked.empty() ? std::string("none") : fmt::format("{}", fmt::join(marked, ", ")),
        kMostMarkedEventsPerRun);
  }
  return "<ul class=\"notes\">\n" + notes + "</ul>\n";
}

}  // namespace

std::string results_table_html(const Comparison& comparison) {
  std::string rows;
  for (size_t e = 0; e < comparison.entries.size(); ++e) rows += row(comparison, e);
  // A wide table scrolls on its own rather than widening the whole page.
  return "<div class=\"scrolls\"><table id=\"results-table\">\n" + header(comparison) + rows +
         "</table></div>\n" + footnotes(comparison);
}

}  // namespace hetps::report
