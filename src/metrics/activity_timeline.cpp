#include "metrics/activity_timeline.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "checkpoint/restoring.h"
#include "checkpoint/state_blob.h"

namespace hetps::metrics {

std::string_view activity_name(Activity activity) {
  switch (activity) {
    case Activity::kCompute:
      return "compute";
    case Activity::kStraggle:
      return "straggle";
    case Activity::kCommunicate:
      return "communicate";
    case Activity::kWait:
      return "wait";
  }
  throw std::logic_error("unknown activity");
}

std::optional<Activity> activity_named(std::string_view name) {
  for (Activity activity : kActivities) {
    if (activity_name(activity) == name) return activity;
  }
  return std::nullopt;
}

WorkerActivity::WorkerActivity(size_t max_intervals) : max_intervals_(max_intervals) {}

WorkerActivity WorkerActivity::from_doubles(std::span<const double> recorded,
                                            size_t max_intervals) {
  constexpr auto kLastActivity = static_cast<double>(Activity::kWait);
  constexpr size_t kHeader = 5;
  // Whole numbers travel exactly up to 2^53, and only those convert to an int64_t (found by
  // fuzz/mpi_messages.cpp: a stride of 3.4e38 did not).
  constexpr double kMaxWhole = 9007199254740992.0;
  const auto is_whole = [&](double value, double min, double max) {
    return value >= min && value <= max && value == std::floor(value);
  };
  if (recorded.size() < kHeader || !is_whole(recorded[0], 1, kMaxWhole) ||
      !is_whole(recorded[1], 0, kMaxWhole) || !is_whole(recorded[2], 0, kMaxWhole) ||
      (recorded[3] != 0 && recorded[3] != 1) || !std::isfinite(recorded[4]) || recorded[4] < 0 ||
      (recorded.size() - kHeader) % 4 != 0 || (recorded.size() - kHeader) / 4 > max_intervals) {
    throw std::invalid_argument(fmt::format(
        "a worker's timeline of {} numbers: expected its stride (a whole number, at least 1), "
        "its whole cycles and its cycle (whole numbers), whether it stopped (0 or 1), the end of "
        "its last interval (finite, at least 0), then four numbers for each of at most {} "
        "intervals",
        recorded.size(), max_intervals));
  }
  WorkerActivity activity(max_intervals);
  activity.stride_ = static_cast<int64_t>(recorded[0]);
  activity.whole_cycles_ = static_cast<int64_t>(recorded[1]);
  activity.cycle_ = static_cast<int64_t>(recorded[2]);
  activity.stopped_ = recorded[3] == 1;
  for (size_t i = kHeader; i < recorded.size(); i += 4) {
    const double cycle = recorded[i];
    const double kind = recorded[i + 1];
    const double start = recorded[i + 2];
    const double end = recorded[i + 3];
    if (!is_whole(cycle, 0, recorded[2]) || !is_whole(kind, 0, kLastActivity) || !(start <= end) ||
        !std::isfinite(end) || start < activity.last_end_) {
      throw std::invalid_argument(fmt::format(
          "a worker's timeline: interval {} (cycle {}, activity {}, {} to {}) is not an activity "
          "of a cycle up to the worker's after the previous interval",
          (i - kHeader) / 4, cycle, kind, start, end));
    }
    activity.intervals_.push_back(
        {static_cast<int64_t>(cycle), static_cast<Activity>(static_cast<int>(kind)), start, end});
    activity.last_end_ = end;
  }
  // Past the kept intervals: the worker's last cycles may not have been sampled.
  activity.last_end_ = std::max(activity.last_end_, recorded[4]);
  return activity;
}

std::vector<double> WorkerActivity::to_doubles() const {
  std::vector<double> recorded = {static_cast<double>(stride_), static_cast<double>(whole_cycles_),
                                  static_cast<double>(cycle_), stopped_ ? 1.0 : 0.0, last_end_};
  recorded.reserve(recorded.size() + 4 * intervals_.size());
  for (const ActivityInterval& interval : intervals_) {
    recorded.insert(recorded.end(), {static_cast<double>(interval.cycle),
                                     static_cast<double>(static_cast<int>(interval.activity)),
                                     interval.start, interval.end});
  }
  return recorded;
}

void WorkerActivity::begin_cycle() { ++cycle_; }

void WorkerActivity::record(Activity activity, double start, double end) {
  if (stopped_ || max_intervals_ == 0) return;
  start = std::max(start, last_end_);
  if (start > last_end_) {
    append(Activity::kWait, last_end_, start);
    last_end_ = start;
  }
  if (end > start) {
    append(activity, start, end);
    last_end_ = end;
  }
}

void WorkerActivity::wait_until(double time) { record(Activity::kWait, last_end_, time); }

void WorkerActivity::stop_at(double time) {
  std::erase_if(intervals_,
                [time](const ActivityInterval& interval) { return interval.start >= time; });
  for (ActivityInterval& interval : intervals_) interval.end = std::min(interval.end, time);
  stopped_ = true;
}

void WorkerActivity::mark_straggling(double from, double to) {
  std::vector<ActivityInterval> marked;
  marked.reserve(intervals_.size());
  for (const ActivityInterval& interval : intervals_) {
    const double overlap_start = std::max(interval.start, from);
    const double overlap_end = std::min(interval.end, to);
    if (interval.activity != Activity::kCompute || overlap_start >= overlap_end) {
      marked.push_back(interval);
      continue;
    }
    const auto piece = [&](Activity activity, double start, double end) {
      if (end > start) marked.push_back({interval.cycle, activity, start, end});
    };
    piece(Activity::kCompute, interval.start, overlap_start);
    piece(Activity::kStraggle, overlap_start, overlap_end);
    piece(Activity::kCompute, overlap_end, interval.end);
  }
  intervals_ = std::move(marked);
}

void WorkerActivity::append(Activity activity, double start, double end) {
  if (!keeps(cycle_)) return;
  if (!intervals_.empty()) {
    ActivityInterval& last = intervals_.back();
    if (last.cycle == cycle_ && last.activity == activity && last.end == start) {
      last.end = end;
      return;
    }
  }
  if (intervals_.size() >= max_intervals_) {
    if (stride_ == 1) whole_cycles_ = cycle_ / 2;
    stride_ *= 2;
    std::erase_if(intervals_,
                  [this](const ActivityInterval& interval) { return !keeps(interval.cycle); });
    // A buffer too small for the cycles it keeps drops the rest of this one.
    if (!keeps(cycle_) || intervals_.size() >= max_intervals_) return;
  }
  intervals_.push_back({cycle_, activity, start, end});
}

ActivityTimeline::ActivityTimeline(int workers, size_t max_intervals_per_worker)
    : max_intervals_per_worker_(max_intervals_per_worker),
      workers_(static_cast<size_t>(workers), WorkerActivity(max_intervals_per_worker)) {}

int64_t ActivityTimeline::cycle_stride() const {
  int64_t stride = 1;
  for (const WorkerActivity& worker : workers_) stride = std::max(stride, worker.cycle_stride());
  return stride;
}

int64_t ActivityTimeline::whole_cycles() const {
  int64_t whole = 0;
  bool sampled = false;
  for (const WorkerActivity& worker : workers_) {
    if (worker.cycle_stride() == 1) continue;
    whole = sampled ? std::min(whole, worker.whole_cycles()) : worker.whole_cycles();
    sampled = true;
  }
  return whole;
}

void ActivityTimeline::end_at(double time) {
  for (WorkerActivity& worker : workers_) {
    worker.wait_until(time);
    worker.stop_at(time);
  }
}

nlohmann::json ActivityTimeline::save_state() const {
  nlohmann::json workers = nlohmann::json::array();
  for (const WorkerActivity& worker : workers_) {
    workers.push_back(checkpoint::doubles_blob(worker.to_doubles()));
  }
  return {{"workers", workers}};
}

void ActivityTimeline::restore_state(const nlohmann::json& state) {
  checkpoint::restoring("the activity timeline", [&] {
    const nlohmann::json& saved = state.at("workers");
    if (saved.size() != workers_.size()) {
      throw checkpoint::CheckpointError(
          fmt::format("holds {} workers, expected {}", saved.size(), workers_.size()));
    }
    std::vector<WorkerActivity> workers;
    workers.reserve(workers_.size());
    for (size_t w = 0; w < saved.size(); ++w) {
      checkpoint::restoring(fmt::format("worker {}", w), [&] {
        const auto recorded = checkpoint::doubles_from_blob(saved[w], "its intervals");
        workers.push_back(WorkerActivity::from_doubles(recorded, max_intervals_per_worker_));
      });
    }
    workers_ = std::move(workers);
  });
}

void write_csv(std::ostream& out, const ActivityTimeline& timeline) {
  out << "worker,cycle,activity,start_s,end_s\n";
  for (size_t w = 0; w < timeline.workers().size(); ++w) {
    for (const ActivityInterval& interval : timeline.workers()[w].intervals()) {
      out << fmt::format("{},{},{},{},{}\n", w, interval.cycle, activity_name(interval.activity),
                         interval.start, interval.end);
    }
  }
}

}  // namespace hetps::metrics
