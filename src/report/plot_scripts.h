// The gnuplot scripts that draw the report's plots as SVG from the CSV files of plot_data.h.
// Each script sits beside its data and is rerun there by hand: `gnuplot accuracy.gp`.
//   accuracy   test accuracy against time: one colour per entry, every seed a thin line of
//              it, the target a dashed line, protocol events as open marks on the curves
//   loss       training loss against time, alike
//   staleness-<n>  the share of entry n's updates at each staleness (entries with a histogram)
// (The per-worker timelines, timeline-<n>, are timeline_plot.h's.)
#pragma once

#include <string>
#include <vector>

#include "report/comparison.h"

namespace hetps::report {

struct PlotScript {
  std::string name;  // `<name>.gp` draws `<name>.svg`
  std::string text;
  std::string svg() const { return name + ".svg"; }
  std::string script() const { return name + ".gp"; }
};

// The colour of entry `index` (from 0), as "#rrggbb": the plots' and the table's.
std::string entry_colour(size_t index);

// The staleness plot of entry `index` (from 0): its name, which plot_scripts() uses when the
// entry has a recorded histogram.
std::string staleness_plot_name(size_t index);

std::vector<PlotScript> plot_scripts(const Comparison& comparison);

}  // namespace hetps::report
