// Where each worker spent its time: computing, straggling, communicating or waiting, as
// intervals of the engine's clock. The report draws them as the per-worker timeline that makes
// stragglers and barriers visible (`timeline.csv` in a run directory).
//
// Memory is bounded by sampling whole cycles (a cycle: a reply reaches the worker, it computes,
// it pushes): the first time a worker's buffer is full, the first half of its cycles so far is
// kept whole for good (the start of a run, which the report shows by default); after them only
// every S-th cycle is kept, S doubling each time the buffer fills again, so a long run keeps
// evenly spread, complete cycles rather than only its first minutes.
//
//   WorkerActivity activity(4096);
//   activity.begin_cycle();
//   activity.record(Activity::kCommunicate, sent, arrived);  // the time before it was a wait
//   activity.record(Activity::kCompute, arrived, computed);
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetps::metrics {

enum class Activity {
  kCompute,
  kStraggle,     // computing while one of the worker's straggler episodes is active
  kCommunicate,  // a model or an update on the wire
  kWait,         // for the server's reply (a barrier, a staleness bound, a queue) or for members
};

// In the report's legend order.
inline constexpr Activity kActivities[] = {Activity::kCompute, Activity::kStraggle,
                                           Activity::kCommunicate, Activity::kWait};

// "compute", "straggle", "communicate", "wait": the names timeline.csv uses.
std::string_view activity_name(Activity activity);
// The activity `name` names, if any.
std::optional<Activity> activity_named(std::string_view name);

struct ActivityInterval {
  int64_t cycle = 0;
  Activity activity = Activity::kWait;
  double start = 0;
  double end = 0;

  bool operator==(const ActivityInterval&) const = default;
};

// One worker's intervals. Used from one thread at a time.
class WorkerActivity {
 public:
  // Keeps at most `max_intervals` intervals; 0 records nothing.
  explicit WorkerActivity(size_t max_intervals);
  // A worker's activity as another process recorded it (to_doubles): its stride, its whole
  // cycles, its cycle, whether it stopped, where its last interval ended (kept or not), then the
  // cycle, activity, start and end of each interval. Throws std::invalid_argument when
  // `recorded` is not that, with counts that are whole numbers up to 2^53, finite times and at
  // most `max_intervals` intervals (which its sender kept too).
  static WorkerActivity from_doubles(std::span<const double> recorded, size_t max_intervals);
  std::vector<double> to_doubles() const;

  // A new cycle begins: a reply is on its way to the worker.
  void begin_cycle();
  // The worker did `activity` from `start` to `end`; the time since its previous interval ended
  // was spent waiting. An interval reaching back before the previous one's end is cut to begin
  // there (a real engine's clock readings may overlap by a scheduling jitter). Ignored once the
  // worker stopped.
  void record(Activity activity, double start, double end);
  // The worker was waiting from its last interval's end until `time` (the end of the run).
  void wait_until(double time);
  // The worker stopped at `time` (it failed): intervals end there, later ones are dropped, and
  // nothing more is recorded.
  void stop_at(double time);
  // Computing between `from` and `to` becomes straggling: one of the worker's episodes.
  void mark_straggling(double from, double to);

  // After its first `whole_cycles()` cycles, every `cycle_stride()`-th cycle is kept.
  int64_t cycle_stride() const { return stride_; }
  int64_t whole_cycles() const { return whole_cycles_; }
  // In order of start; one worker's intervals never overlap.
  const std::vector<ActivityInterval>& intervals() const { return intervals_; }

 private:
  bool keeps(int64_t cycle) const {
    return cycle <= whole_cycles_ || (cycle - whole_cycles_ - 1) % stride_ == 0;
  }
  void append(Activity activity, double start, double end);

  size_t max_intervals_;
  int64_t cycle_ = 0;
  int64_t stride_ = 1;
  int64_t whole_cycles_ = 0;  // set when the buffer first fills
  double last_end_ = 0;
  bool stopped_ = false;
  std::vector<ActivityInterval> intervals_;
};

// Every worker's activity over one run, indexed by worker id.
class ActivityTimeline {
 public:
  ActivityTimeline(int workers, size_t max_intervals_per_worker);

  // Whether anything is recorded: false for a buffer of no intervals.
  bool records() const { return max_intervals_per_worker_ > 0; }
  WorkerActivity& worker(int id) { return workers_.at(static_cast<size_t>(id)); }
  const std::vector<WorkerActivity>& workers() const { return workers_; }
  // The largest stride of any worker: 1 when every cycle was kept.
  int64_t cycle_stride() const;
  // The fewest cycles any worker whose cycles were sampled kept whole from its start.
  int64_t whole_cycles() const;
  // The run ended at `time`: every live worker waited from its last interval until then, and
  // what an engine foresaw past it (a step it computed ahead) is cut there.
  void end_at(double time);

  // Every worker's activity in its wire form (WorkerActivity::to_doubles), for checkpoints.
  // restore_state, into a timeline of as many workers and the same buffer size, throws
  // checkpoint::CheckpointError naming what does not fit (the worker count, a worker's record,
  // or more intervals than its buffer holds) and leaves the timeline unchanged.
  nlohmann::json save_state() const;
  void restore_state(const nlohmann::json& state);

 private:
  size_t max_intervals_per_worker_;
  std::vector<WorkerActivity> workers_;
};

// timeline.csv: `worker,cycle,activity,start_s,end_s`, rows by worker then start, times with
// the precision the run log uses.
void write_csv(std::ostream& out, const ActivityTimeline& timeline);

}  // namespace hetps::metrics
