#include "report/timeline_bars.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <optional>

namespace hetps::report {
namespace {

constexpr size_t kActivityCount = std::size(kActivities);

// Seconds of each activity in each column of one lane.
using LaneColumns = std::vector<std::array<double, kActivityCount>>;

class ColumnGrid {
 public:
  ColumnGrid(double start, double end, int columns)
      : start_(start),
        end_(end),
        columns_(static_cast<size_t>(columns)),
        width_((end - start) / columns) {}

  size_t columns() const { return columns_; }
  // Where column `c` begins; column `columns()` is the window's end.
  double edge(size_t c) const {
    return c == columns_ ? end_ : start_ + static_cast<double>(c) * width_;
  }
  size_t column_of(double time) const {
    const double c = std::floor((time - start_) / width_);
    return std::min(columns_ - 1, static_cast<size_t>(std::max(0.0, c)));
  }

  // Adds the part of `interval` inside the window to the columns it covers.
  void fill(LaneColumns& lane, const TimelineRow& interval) const {
    const double from = std::max(interval.start, start_);
    const double to = std::min(interval.end, end_);
    if (to <= from) return;
    const size_t activity = static_cast<size_t>(interval.activity);
    for (size_t c = column_of(from); c <= column_of(to); ++c) {
      lane[c][activity] += std::max(0.0, std::min(to, edge(c + 1)) - std::max(from, edge(c)));
    }
  }

  // The activity that filled most of `column`, if recorded activity filled half of it.
  std::optional<Activity> shown(const std::array<double, kActivityCount>& column) const {
    double recorded = 0;
    for (double seconds : column) recorded += seconds;
    if (recorded < width_ / 2) return std::nullopt;
    const auto most = std::max_element(column.begin(), column.end());
    return kActivities[static_cast<size_t>(most - column.begin())];
  }

 private:
  double start_;
  double end_;
  size_t columns_;
  double width_;
};

void add_lane_bars(const ColumnGrid& grid, int worker, const LaneColumns& lane,
                   std::vector<TimelineBar>& bars) {
  std::optional<Activity> current;
  size_t from = 0;
  for (size_t c = 0; c <= grid.columns(); ++c) {
    const std::optional<Activity> shown = c < grid.columns() ? grid.shown(lane[c]) : std::nullopt;
    if (shown == current) continue;
    if (current) bars.push_back({worker, *current, grid.edge(from), grid.edge(c)});
    current = shown;
    from = c;
  }
}

}  // namespace

std::vector<TimelineBar> timeline_bars(const std::vector<TimelineRow>& intervals, double start,
                                       double end, int columns) {
  std::vector<TimelineBar> bars;
  if (!(end > start) || columns < 1) return bars;
  const ColumnGrid grid(start, end, columns);
  for (auto first = intervals.begin(); first != intervals.end();) {
    const int worker = first->worker;
    const auto last = std::find_if(first, intervals.end(),
                                   [&](const TimelineRow& i) { return i.worker != worker; });
    LaneColumns lane(grid.columns());
    for (auto interval = first; interval != last; ++interval) grid.fill(lane, *interval);
    add_lane_bars(grid, worker, lane, bars);
    first = last;
  }
  return bars;
}

}  // namespace hetps::report
