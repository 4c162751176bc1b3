// The result table of `hetps compare`: per run name (a --protocols entry), over its seeds,
// mean ± standard deviation of the final and best accuracy and of the time to target (over the
// seeds that reached it), how many seeds reached the target, the speed-up over BSP in time to
// target, and the bytes sent to the servers.
#pragma once

#include <string>
#include <vector>

#include "metrics/records.h"

namespace hetps::cli {

// One finished run of a comparison.
struct CompletedRun {
  std::string run_name;   // its --protocols entry
  std::string directory;  // relative to the comparison's output directory
  metrics::Summary summary;
};

// Rows in the order the run names first appear. The speed-up is relative to the first run
// whose protocol is "bsp"; "-" where that or this run never reached the target.
std::string format_compare_table(const std::vector<CompletedRun>& runs);

}  // namespace hetps::cli
