#include "cli/timeline_window_flag.h"

#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "cli/usage_error.h"

namespace hetps::cli {

void add_timeline_window_flag(CLI::App& command, report::ReportOptions& options) {
  command
      .add_option_function<std::string>(
          "--timeline-window",
          [&options](const std::string& text) {
            try {
              options.timeline_window = report::parse_timeline_window(text);
            } catch (const std::invalid_argument& error) {
              throw FlagError(fmt::format("--timeline-window {}: {}", text, error.what()));
            }
          },
          "Seconds of each run that the report's per-worker timeline shows, e.g. 0:30, or 10: "
          "to the run's end (default: from 0 to about 20 cycles of the slowest worker)")
      ->type_name("START:END");
}

}  // namespace hetps::cli
