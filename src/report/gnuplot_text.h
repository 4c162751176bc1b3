// What every plot script of the report shares: how a text becomes a gnuplot string, the
// script's first lines, and the label of the time axis.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/run_record.h"

namespace hetps::report {

// A gnuplot string literal: single-quoted, where only a doubled quote is special. Line breaks
// would end the command: they become spaces.
std::string gnuplot_string(std::string_view text);

// The lines that set up plot `name`: an SVG of `width` x `height` pixels, `name`.svg, drawn
// from comma-separated data.
std::string plot_preamble(const std::string& name, int width, int height);

// The label of a time axis over `runs`: virtual time on sim, the wall clock elsewhere.
std::string time_label(const std::vector<const RunRecord*>& runs);

}  // namespace hetps::report
