// One finished run as the report reads it back from its directory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "metrics/activity_timeline.h"
#include "metrics/records.h"

namespace hetps::report {

// An `eval` record of log.jsonl.
struct Evaluation {
  double time = 0;
  int64_t samples = 0;  // applied so far: 0 before any training, when the loss means nothing
  double test_accuracy = 0;
  double train_loss = 0;
};

// Any other record of log.jsonl: a protocol's phase change, regroup, threshold change, an
// engine's stall warning, ...
struct LoggedEvent {
  double time = 0;
  std::string type;
};

// What the run ran on, from its config.toml; empty where the file does not say.
struct RunSetting {
  std::string engine;
  std::string scenario;
  std::string model;
  std::string data;
  int64_t workers = 0;
  // train.eval_interval: times to target are read at evaluations this far apart (0: unknown).
  double eval_interval = 0;
  bool timeline_off = false;  // run.timeline_intervals = 0: the run recorded no timeline
  // The whole config but for what seeds of one setting may differ in (the seed, run.*,
  // data.dir): runs named alike are seeds of one entry only where these are equal.
  std::string trained_as;
};

// The engines' activities, as the report reads them back from timeline.csv.
using metrics::Activity;
using metrics::activity_name;
using metrics::activity_named;
using metrics::kActivities;

// A row of timeline.csv: worker `worker` did `activity` from `start` to `end` (seconds of the
// engine's clock, log.jsonl's `time`) in its `cycle`-th round (from 1).
struct TimelineRow {
  int worker = 0;
  int64_t cycle = 0;
  Activity activity = Activity::kWait;
  double start = 0;
  double end = 0;

  bool operator==(const TimelineRow&) const = default;
};

// Where each worker spent its time. Between two of a worker's intervals it was not sampled
// (or had no reply yet, or had stopped): a gap is never an activity.
struct RunTimeline {
  std::vector<TimelineRow> intervals;  // by worker, then start; a worker's never overlap
  // Every how many cycles of a worker the engine kept, bounding its memory: the largest stride
  // of any worker (1: every cycle), after the first `whole_cycles` of each sampled worker.
  int64_t cycle_stride = 1;
  int64_t whole_cycles = 0;
};

struct RunRecord {
  std::filesystem::path directory;
  std::string entry;  // its row in the report: the run name, qualified when ambiguous
  metrics::Summary summary;
  bool staleness_recorded = false;  // summaries before the histogram existed lack it
  std::vector<Evaluation> evaluations;
  std::vector<LoggedEvent> events;
  RunSetting setting;
  std::optional<RunTimeline> timeline;  // runs of a hetps before the timeline have none
};

}  // namespace hetps::report
