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
enum class NoSpeedUp { kNoBsp, kBspMissedTarget, kMissedTarget };

struct EntryResults {
  std::string entry;
  std::string protocol;
  std::vector<const RunRecord*> runs;  // its seeds, in the order read
  Spread final_accuracy;
  Spread best_accuracy;
  std::optional<Spread> time_to_target;  // over the seeds that reached the target
  // BSP's mean time to target over this entry's: both over the seeds that reached it.
  std::optional<double> speed_up;
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
