// The numbers of the report's table: the runs grouped by entry (a `--protocols` entry, over
// its seeds), each figure as the mean with its minimum and maximum over the seeds.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "metrics/records.h"
#include "report/run_record.h"

namespace hetps::report {

// A figure over an entry's seeds (those that have it).
struct Spread {
  double mean = 0;
  double min = 0;
  double max = 0;
  int seeds = 0;
};

// Why an entry has no speed-up over BSP.
enum class NoSpeedUp { kNoBsp, kBspMissedTarget, kMissedTarget, kReachedAtStart, kTargetsDiffer };

// BSP's mean time to target over an entry's, from each one's seeds' times to target (empty:
// that seed missed the target): only when every seed of both reached it, since a mean over the
// seeds that got there would make an entry that often missed look faster than it is, and when
// no seed of either reached it at time 0 (at the evaluation before training: the target is not
// above that seed's starting accuracy, and its 0 would only drag the mean down). Else empty,
// with why (`baseline_times` empty: there is no BSP).
struct SpeedUp {
  std::optional<double> value;
  NoSpeedUp missing = NoSpeedUp::kNoBsp;
};
SpeedUp speed_up_over(const std::vector<std::optional<double>>& baseline_times,
                      const std::vector<std::optional<double>>& times);

struct EntryResults {
  std::string entry;
  std::string protocol;
  std::vector<const RunRecord*> runs;  // its seeds, in the order read
  Spread final_accuracy;
  Spread best_accuracy;
  std::optional<Spread> time_to_target;       // over the seeds that reached the target
  std::optional<double> speed_up;             // speed_up_over BSP's seeds
  NoSpeedUp no_speed_up = NoSpeedUp::kNoBsp;  // when speed_up is empty
  Spread samples_per_second;                  // samples over total (engine) time
  Spread bytes_to_server;
  Spread bytes_from_server;
  Spread bytes_worker_to_worker;
  Spread mean_staleness;
  int64_t max_staleness = 0;  // over all seeds
  // Events per seed by type; a type an entry's runs never logged counts 0.
  std::map<std::string, Spread> events;
  // Summed over the seeds whose summaries recorded it (staleness_seeds of them).
  metrics::StalenessHistogram staleness;
  int staleness_seeds = 0;
};

struct Comparison {
  std::vector<EntryResults> entries;     // in the order their runs were first read
  std::vector<std::string> event_types;  // every type any run logged, sorted
  std::optional<size_t> baseline;        // index of the first entry of protocol "bsp", if any
  std::vector<double> targets;           // the distinct target accuracies, ascending
};

// `runs` must outlive the result (entries point into it).
Comparison compare_runs(const std::vector<RunRecord>& runs);

}  // namespace hetps::report
