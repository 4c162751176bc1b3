#include "report/gnuplot_text.h"

#include <fmt/format.h>

namespace hetps::report {

std::string gnuplot_string(std::string_view text) {
  std::string literal = "'";
  for (char c : text) {
    if (c == '\'') {
      literal += "''";
    } else {
      literal += (c == '\n' || c == '\r') ? ' ' : c;
    }
  }
  return literal + "'";
}

std::string plot_preamble(const std::string& name, int width, int height) {
  // noenhanced: run names such as "ssp_staleness_8" are printed as they are, not subscripted.
  return fmt::format(
      "# Written by hetps report. Draws {0}.svg; rerun in this directory: gnuplot {0}.gp\n"
      "set terminal svg size {1},{2} noenhanced font 'sans,13' background '#ffffff'\n"
      "set output '{0}.svg'\n"
      "set datafile separator comma\n"
      "set border 3\n"
      "set tics nomirror\n"
      "set grid lc rgb '#dddddd'\n",
      name, width, height);
}

std::string time_label(const std::vector<const RunRecord*>& runs) {
  bool sim = false;
  bool real = false;
  for (const RunRecord* run : runs) (run->summary.engine == "sim" ? sim : real) = true;
  if (sim && real) return "time (s; virtual on sim, wall clock on the other engines)";
  return sim ? "virtual time (s)" : "wall-clock time (s)";
}

}  // namespace hetps::report
