#include "report/timeline_window.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace hetps::report {
namespace {

constexpr const char* kWindowForm =
    "expected START:END in seconds with 0 <= START < END (END left out: to the run's end), e.g. "
    "0:30 or 10:";

std::optional<double> window_seconds(std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

// The mean time between the starts of one worker's kept cycles [first, last), the cycles it did
// not keep counted; a worker that kept one cycle: that cycle's span.
double mean_cycle(std::vector<TimelineRow>::const_iterator first,
                  std::vector<TimelineRow>::const_iterator last) {
  const TimelineRow& final_cycle_start = *std::find_if(
      first, last, [&](const TimelineRow& i) { return i.cycle == (last - 1)->cycle; });
  if (final_cycle_start.cycle == first->cycle) return (last - 1)->end - first->start;
  return (final_cycle_start.start - first->start) /
         static_cast<double>(final_cycle_start.cycle - first->cycle);
}

double slowest_mean_cycle(const std::vector<TimelineRow>& intervals) {
  double slowest = 0;
  for (auto first = intervals.begin(); first != intervals.end();) {
    const auto last = std::find_if(first, intervals.end(),
                                   [&](const TimelineRow& i) { return i.worker != first->worker; });
    slowest = std::max(slowest, mean_cycle(first, last));
    first = last;
  }
  return slowest;
}

std::vector<TimelineRow> cut_to_window(const std::vector<TimelineRow>& intervals, double start,
                                       double end) {
  std::vector<TimelineRow> inside;
  for (TimelineRow interval : intervals) {
    interval.start = std::max(interval.start, start);
    interval.end = std::min(interval.end, end);
    if (interval.end > interval.start) inside.push_back(interval);
  }
  return inside;
}

}  // namespace

TimelineWindow parse_timeline_window(std::string_view text) {
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    throw std::invalid_argument(
        fmt::format("{}; got \"{}\", which has no colon", kWindowForm, text));
  }
  const std::optional<double> start = window_seconds(text.substr(0, colon));
  const std::string_view end_text = text.substr(colon + 1);
  const std::optional<double> end = end_text.empty() ? std::nullopt : window_seconds(end_text);
  if (!start || (!end_text.empty() && !end)) {
    throw std::invalid_argument(fmt::format("{}; got \"{}\", where {} is not a number", kWindowForm,
                                            text, start ? "END" : "START"));
  }
  if (*start < 0) {
    throw std::invalid_argument(fmt::format("{}; got START {} below 0", kWindowForm, *start));
  }
  if (end && *end <= *start) {
    throw std::invalid_argument(
        fmt::format("{}; got END {} not after START {}", kWindowForm, *end, *start));
  }
  return {*start, end};
}

std::string timeline_window_text(const TimelineWindow& window) {
  return fmt::format("{}:{}", window.start, window.end ? fmt::format("{}", *window.end) : "");
}

EntryTimeline entry_timeline(const RunRecord& run, const std::optional<TimelineWindow>& chosen) {
  const std::vector<TimelineRow>& intervals = run.timeline.value().intervals;
  const double run_end = run.summary.total_time;
  EntryTimeline timeline{&run, 0, run_end, chosen.has_value(), {}};
  if (chosen) {
    timeline.start = chosen->start;
    timeline.end = chosen->end.value_or(std::max(run_end, chosen->start));
  } else {
    const double span = kDefaultWindowCycles * slowest_mean_cycle(intervals);
    if (span > 0) timeline.end = std::min(span, run_end);
  }
  timeline.intervals = cut_to_window(intervals, timeline.start, timeline.end);
  return timeline;
}

std::vector<std::optional<EntryTimeline>> entry_timelines(
    const Comparison& comparison, const std::optional<TimelineWindow>& chosen) {
  std::vector<std::optional<EntryTimeline>> timelines;
  for (const EntryResults& entry : comparison.entries) {
    const auto run = std::find_if(entry.runs.begin(), entry.runs.end(),
                                  [](const RunRecord* r) { return r->timeline.has_value(); });
    timelines.push_back(run == entry.runs.end() ? std::nullopt
                                                : std::optional(entry_timeline(**run, chosen)));
  }
  return timelines;
}

}  // namespace hetps::report
