// Runs with a made-up timeline, for the tests of the timeline's window and plot: worker w
// repeats a cycle of cycle_seconds[w], each cycle a wait, a model on the wire, a compute and
// an update on the wire (1/8, 1/8, 5/8 and 1/8 of it: times exact in binary when the cycle is).
#pragma once

#include <vector>

#include "report/run_record.h"

namespace hetps::report::testing {

inline RunRecord run_with_cycles(const std::vector<double>& cycle_seconds, int64_t cycles,
                                 double total_time, int64_t stride = 1) {
  RunRecord run;
  run.entry = "made-up";
  run.summary.engine = "sim";
  run.summary.seed = 7;
  run.summary.workers = static_cast<int>(cycle_seconds.size());
  run.summary.total_time = total_time;
  RunTimeline timeline;
  timeline.cycle_stride = stride;
  constexpr Activity kCycle[] = {Activity::kWait, Activity::kCommunicate, Activity::kCompute,
                                 Activity::kCommunicate};
  constexpr double kEighths[] = {1, 1, 5, 1};
  for (int worker = 0; worker < run.summary.workers; ++worker) {
    const double eighth = cycle_seconds[static_cast<size_t>(worker)] / 8;
    double time = 0;
    for (int64_t cycle = 1; cycle <= cycles; ++cycle) {
      for (size_t part = 0; part < std::size(kCycle); ++part) {
        const double end = time + kEighths[part] * eighth;
        if ((cycle - 1) % stride == 0)
          timeline.intervals.push_back({worker, cycle, kCycle[part], time, end});
        time = end;
      }
    }
  }
  run.timeline = std::move(timeline);
  return run;
}

}  // namespace hetps::report::testing
