#include "report/plot_scripts.h"

#include <algorithm>
#include <iterator>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/gnuplot_text.h"
#include "report/plot_data.h"

namespace hetps::report {
namespace {

// Tableau's ten colours: distinct for most readers, colour-blind ones included.
constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
// Open shapes, so a mark does not hide the curve under it: circle, square, triangles, diamond,
// pentagon, then plus, cross and star.
constexpr int kEventPointTypes[] = {6, 4, 8, 10, 12, 14, 1, 2, 3};

// Every run of the comparison, for the time axis's label.
std::vector<const RunRecord*> all_runs(const Comparison& comparison) {
  std::vector<const RunRecord*> runs;
  for (const EntryResults& entry : comparison.entries)
    runs.insert(runs.end(), entry.runs.begin(), entry.runs.end());
  return runs;
}

// Which curve a plot draws: its data file, the column of its value there and in events.csv.
struct Curve {
  std::string name;
  const char* data;
  int event_column;
  const char* label;
  std::vector<CurvePoint> (*of)(const RunRecord&);
  bool with_target;
};

std::optional<PlotScript> curve_plot(const Comparison& comparison, const Curve& curve) {
  std::vector<std::string> clauses;
  for (size_t e = 0; e < comparison.entries.size(); ++e) {
    const EntryResults& entry = comparison.entries[e];
    bool titled = false;
    for (const RunRecord* run : entry.runs) {
      if (curve.of(*run).empty()) continue;
      clauses.push_back(
          fmt::format("'{}' skip 1 using 3:(($1 == {} && $2 == {}) ? $4 : NaN) with lines lw 1.2 "
                      "lc rgb '{}' {}",
                      curve.data, e + 1, run->summary.seed, entry_colour(e),
                      titled ? "notitle" : "title " + gnuplot_string(entry.entry)));
      titled = true;
    }
  }
  if (clauses.empty()) return std::nullopt;
  const std::vector<std::string> marked = marked_event_types(comparison);
  const auto& types = comparison.event_types;
  for (size_t m = 0; m < marked.size(); ++m) {
    const auto type = std::find(types.begin(), types.end(), marked[m]) - types.begin() + 1;
    const int point_type = kEventPointTypes[m % std::size(kEventPointTypes)];
    for (size_t e = 0; e < comparison.entries.size(); ++e) {
      if (comparison.entries[e].events.at(marked[m]).max == 0) continue;
      clauses.push_back(fmt::format(
          "'{}' skip 1 using 4:(($1 == {} && $3 == {}) ? ${} : NaN) with points pt {} ps 1.3 "
          "lw 1.5 lc rgb '{}' notitle",
          kEventData, e + 1, type, curve.event_column, point_type, entry_colour(e)));
    }
    clauses.push_back(
        fmt::format("keyentry with points pt {} ps 1.3 lw 1.5 lc rgb '#333333' "
                    "title {}",
                    point_type, gnuplot_string(marked[m])));
  }
  if (curve.with_target) {
    for (double target : comparison.targets) {
      if (target <= 0) continue;  // no target set
      clauses.push_back(fmt::format("{} with lines dt 2 lw 1.5 lc rgb '#444444' title 'target {}'",
                                    target, target));
    }
  }
  std::string text = plot_preamble(curve.name, 960, 540);
  text += fmt::format(
      "set key outside right top\n"
      "set xlabel {}\n"
      "set ylabel {}\n"
      "set xrange [0:*]\n"
      "plot \\\n  {}\n",
      gnuplot_string(time_label(all_runs(comparison))), gnuplot_string(curve.label),
      fmt::join(clauses, ", \\\n  "));
  return PlotScript{curve.name, text};
}

std::string staleness_plot(const Comparison& comparison, size_t e) {
  const EntryResults& entry = comparison.entries[e];
  const std::vector<metrics::StalenessHistogram::Bucket> buckets = entry.staleness.buckets();
  // At least a few bars wide: BSP's one bar at 0 would fill the plot.
  const int64_t widest = std::max<int64_t>(buckets.back().staleness, 4);
  std::string text = plot_preamble(staleness_plot_name(e), 480, 320);
  text += fmt::format(
      "set title {}\n"
      "set style fill solid 0.85 noborder\n"
      "set boxwidth 0.8\n"
      "set xrange [-0.5:{}.5]\n"
      "set yrange [0:*]\n"
      "set xlabel 'staleness (versions behind the server)'\n"
      "set ylabel 'contributions (%)'\n",
      gnuplot_string(entry.entry), widest);
  if (buckets.back().or_more) {
    text += fmt::format("set xtics add ('>={0}' {0})\n", buckets.back().staleness);
  }
  text += fmt::format(
      "plot '{}' skip 1 using 2:($1 == {} ? 100 * $5 : NaN) with boxes lc rgb '{}' notitle\n",
      kStalenessData, e + 1, entry_colour(e));
  return text;
}

}  // namespace

std::string entry_colour(size_t index) { return kPalette[index % std::size(kPalette)]; }

std::string staleness_plot_name(size_t index) { return fmt::format("staleness-{}", index + 1); }

std::vector<PlotScript> plot_scripts(const Comparison& comparison) {
  std::vector<PlotScript> scripts;
  const Curve curves[] = {
      {"accuracy", kAccuracyData, 5, "test accuracy", accuracy_curve, true},
      {"loss", kLossData, 6, "training loss (mean since the previous evaluation)", loss_curve,
       false},
  };
  for (const Curve& curve : curves) {
    if (auto script = curve_plot(comparison, curve)) scripts.push_back(std::move(*script));
  }
  for (size_t e = 0; e < comparison.entries.size(); ++e) {
    if (comparison.entries[e].staleness.total_updates() == 0) continue;
    scripts.push_back({staleness_plot_name(e), staleness_plot(comparison, e)});
  }
  return scripts;
}

}  // namespace hetps::report
