#include "cli/compare_table.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include <fmt/format.h>

#include "report/comparison.h"
#include "report/units.h"

namespace hetps::cli {
namespace {

// One run name's results over its seeds.
struct RunGroup {
  std::string run_name;
  std::string protocol;
  std::vector<metrics::Summary> seeds;

  std::vector<std::optional<double>> seeds_times_to_target() const {
    std::vector<std::optional<double>> times;
    for (const auto& summary : seeds) times.push_back(summary.time_to_target);
    return times;
  }
  std::vector<double> times_to_target() const {
    std::vector<double> times;
    for (const auto& time : seeds_times_to_target()) {
      if (time) times.push_back(*time);
    }
    return times;
  }
};

std::vector<RunGroup> group_by_run_name(const std::vector<CompletedRun>& runs) {
  std::vector<RunGroup> groups;
  for (const CompletedRun& run : runs) {
    auto group = std::find_if(groups.begin(), groups.end(),
                              [&](const RunGroup& g) { return g.run_name == run.run_name; });
    if (group == groups.end()) {
      group = groups.insert(groups.end(), RunGroup{run.run_name, run.summary.protocol, {}});
    }
    group->seeds.push_back(run.summary);
  }
  return groups;
}

double mean(const std::vector<double>& values) {
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

// The sample standard deviation (n - 1): seeds are a sample of the runs one could make.
double standard_deviation(const std::vector<double>& values) {
  const double m = mean(values);
  double squares = 0;
  for (double value : values) squares += (value - m) * (value - m);
  return std::sqrt(squares / static_cast<double>(values.size() - 1));
}

// "0.8412" for one value, "0.8412 ± 0.0021" for several; "-" for none.
std::string mean_and_spread(const std::vector<double>& values, int decimals,
                            std::string_view unit = "") {
  if (values.empty()) return "-";
  if (values.size() == 1) return fmt::format("{:.{}f}{}", values.front(), decimals, unit);
  return fmt::format("{:.{}f} ± {:.{}f}{}", mean(values), decimals, standard_deviation(values),
                     decimals, unit);
}

template <class Field>
std::vector<double> collect(const RunGroup& group, Field field) {
  std::vector<double> values;
  for (const auto& summary : group.seeds) values.push_back(static_cast<double>(field(summary)));
  return values;
}

// Pads every column to its widest cell; a rule of dashes under the header.
std::string align(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths(rows.front().size(), 0);
  // Width in characters, not bytes: "±" takes two bytes in UTF-8.
  const auto width_of = [](const std::string& cell) {
    return static_cast<size_t>(std::count_if(cell.begin(), cell.end(), [](char c) {
      return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
  };
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], width_of(row[i]));
  }
  std::string text;
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t i = 0; i < rows[r].size(); ++i) {
      const bool last = i + 1 == rows[r].size();
      text += rows[r][i] + (last ? "" : std::string(widths[i] - width_of(rows[r][i]) + 2, ' '));
    }
    text += '\n';
    if (r == 0) {
      size_t total = 0;
      for (size_t width : widths) total += width + 2;
      text += std::string(total - 2, '-') + '\n';
    }
  }
  return text;
}

}  // namespace

std::string format_compare_table(const std::vector<CompletedRun>& runs) {
  const std::vector<RunGroup> groups = group_by_run_name(runs);
  const auto baseline = std::find_if(groups.begin(), groups.end(),
                                     [](const RunGroup& g) { return g.protocol == "bsp"; });
  const std::vector<std::optional<double>> baseline_times =
      baseline != groups.end() ? baseline->seeds_times_to_target()
                               : std::vector<std::optional<double>>{};

  std::vector<std::vector<std::string>> rows = {{"run", "final accuracy", "best accuracy",
                                                 "time to target", "reached", "speed-up vs bsp",
                                                 "bytes to server", "worker-to-worker bytes"}};
  for (const RunGroup& group : groups) {
    const std::vector<double> times = group.times_to_target();
    const report::SpeedUp speed_up =
        report::speed_up_over(baseline_times, group.seeds_times_to_target());
    rows.push_back({
        group.run_name,
        mean_and_spread(collect(group, [](const auto& s) { return s.final_accuracy; }), 4),
        mean_and_spread(collect(group, [](const auto& s) { return s.best_accuracy; }), 4),
        // To the hundredth: an evaluation grid as fine as 0.25 s is not rounded off.
        mean_and_spread(times, 2, " s"),
        fmt::format("{}/{}", times.size(), group.seeds.size()),
        speed_up.value ? fmt::format("{:.2f}x", *speed_up.value) : "-",
        report::format_bytes(mean(collect(group, [](const auto& s) { return s.bytes_to_server; }))),
        // Petrel's members send to their leader, not the server: a protocol's traffic is both.
        report::format_bytes(
            mean(collect(group, [](const auto& s) { return s.bytes_worker_to_worker; }))),
    });
  }
  return align(rows);
}

std::string format_evaluation_grid(const std::vector<double>& eval_intervals) {
  const auto [least, most] = std::minmax_element(eval_intervals.begin(), eval_intervals.end());
  const std::string every = *least == *most ? fmt::format("{:g} s", *least)
                                            : fmt::format("{:g} to {:g} s", *least, *most);
  return fmt::format(
      "times to target are read at the evaluations, every {} of engine time "
      "(train.eval_interval) and at each run's end",
      every);
}

}  // namespace hetps::cli
