// `--timeline-window START:END` of `hetps report` and `hetps compare`: the stretch of each run
// that the report's per-worker timeline shows (seconds; END left out: to the run's end).
#pragma once

#include <CLI/CLI.hpp>

#include "report/report.h"

namespace hetps::cli {

// Adds the flag to `command`, filling `options.timeline_window` as the command line is parsed:
// a window that is not one is a UsageError naming the flag before anything runs. `options` must
// outlive `command`'s parsing.
void add_timeline_window_flag(CLI::App& command, report::ReportOptions& options);

}  // namespace hetps::cli
