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

// The line under the table saying how finely its times to target are measured: a time to target
// is that of the first evaluation at or above the target, and evaluations come every
// `train.eval_interval` seconds of engine time (one value per run; at least one).
std::string format_evaluation_grid(const std::vector<double>& eval_intervals);

}  // namespace hetps::cli
