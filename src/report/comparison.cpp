#include "report/comparison.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <set>

namespace hetps::report {
namespace {

Spread spread_of(const std::vector<double>& values) {
  Spread spread;
  spread.seeds = static_cast<int>(values.size());
  if (values.empty()) return spread;
  spread.mean =
      std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  const auto [min, max] = std::minmax_element(values.begin(), values.end());
  spread.min = *min;
  spread.max = *max;
  return spread;
}

Spread over_runs(const EntryResults& entry,
                 const std::function<double(const metrics::Summary&)>& figure) {
  std::vector<double> values;
  for (const RunRecord* run : entry.runs) values.push_back(figure(run->summary));
  return spread_of(values);
}

std::vector<EntryResults> group_by_entry(const std::vector<RunRecord>& runs) {
  std::vector<EntryResults> entries;
  for (const RunRecord& run : runs) {
    auto entry = std::find_if(entries.begin(), entries.end(),
                              [&](const EntryResults& e) { return e.entry == run.entry; });
    if (entry == entries.end()) {
      entry = entries.insert(entries.end(), EntryResults{});
      entry->entry = run.entry;
      entry->protocol = run.summary.protocol;
    }
    entry->runs.push_back(&run);
  }
  return entries;
}

std::optional<Spread> time_to_target(const EntryResults& entry) {
  std::vector<double> times;
  for (const RunRecord* run : entry.runs) {
    if (run->summary.time_to_target) times.push_back(*run->summary.time_to_target);
  }
  if (times.empty()) return std::nullopt;
  return spread_of(times);
}

void count_events(EntryResults& entry, const std::vector<std::string>& types) {
  for (const std::string& type : types) {
    std::vector<double> counts;
    for (const RunRecord* run : entry.runs) {
      counts.push_back(static_cast<double>(
          std::count_if(run->events.begin(), run->events.end(),
                        [&](const LoggedEvent& event) { return event.type == type; })));
    }
    entry.events[type] = spread_of(counts);
  }
}

void add_staleness(EntryResults& entry) {
  for (const RunRecord* run : entry.runs) {
    if (!run->staleness_recorded) continue;
    ++entry.staleness_seeds;
    for (const auto& bucket : run->summary.staleness_histogram.buckets())
      entry.staleness.add(bucket.staleness, bucket.updates);
  }
}

std::vector<std::optional<double>> seeds_times_to_target(const EntryResults& entry) {
  std::vector<std::optional<double>> times;
  for (const RunRecord* run : entry.runs) times.push_back(run->summary.time_to_target);
  return times;
}

void add_speed_up(EntryResults& entry, const EntryResults* baseline) {
  const SpeedUp speed_up = speed_up_over(
      baseline ? seeds_times_to_target(*baseline) : std::vector<std::optional<double>>{},
      seeds_times_to_target(entry));
  entry.speed_up = speed_up.value;
  entry.no_speed_up = speed_up.missing;
}

}  // namespace

SpeedUp speed_up_over(const std::vector<std::optional<double>>& baseline_times,
                      const std::vector<std::optional<double>>& times) {
  const auto reached_at_start = [](const std::vector<std::optional<double>>& seeds) {
    return std::ranges::any_of(
        seeds, [](const std::optional<double>& time) { return time.has_value() && *time == 0; });
  };
  const auto mean_if_all_reached = [](const std::vector<std::optional<double>>& seeds) {
    std::optional<double> sum = 0.0;
    for (const std::optional<double>& time : seeds) {
      if (!time) return std::optional<double>();
      *sum += *time;
    }
    return seeds.empty() ? std::nullopt : std::optional(*sum / static_cast<double>(seeds.size()));
  };
  if (baseline_times.empty()) return {std::nullopt, NoSpeedUp::kNoBsp};
  const std::optional<double> baseline = mean_if_all_reached(baseline_times);
  if (!baseline) return {std::nullopt, NoSpeedUp::kBspMissedTarget};
  const std::optional<double> entry = mean_if_all_reached(times);
  if (!entry) return {std::nullopt, NoSpeedUp::kMissedTarget};
  if (reached_at_start(baseline_times) || reached_at_start(times)) {
    return {std::nullopt, NoSpeedUp::kReachedAtStart};
  }
  return {*baseline / *entry, NoSpeedUp::kNoBsp};
}

Comparison compare_runs(const std::vector<RunRecord>& runs) {
  Comparison comparison;
  std::set<std::string> types;
  std::set<double> targets;
  for (const RunRecord& run : runs) {
    for (const LoggedEvent& event : run.events) types.insert(event.type);
    targets.insert(run.summary.target_accuracy);
  }
  comparison.event_types.assign(types.begin(), types.end());
  comparison.targets.assign(targets.begin(), targets.end());
  comparison.entries = group_by_entry(runs);

  for (EntryResults& entry : comparison.entries) {
    using S = metrics::Summary;
    entry.final_accuracy = over_runs(entry, [](const S& s) { return s.final_accuracy; });
    entry.best_accuracy = over_runs(entry, [](const S& s) { return s.best_accuracy; });
    entry.time_to_target = time_to_target(entry);
    entry.samples_per_second = over_runs(entry, [](const S& s) {
      return s.total_time > 0 ? static_cast<double>(s.samples) / s.total_time : 0.0;
    });
    const auto bytes = [&](int64_t S::*field) {
      return over_runs(entry, [field](const S& s) { return static_cast<double>(s.*field); });
    };
    entry.bytes_to_server = bytes(&S::bytes_to_server);
    entry.bytes_from_server = bytes(&S::bytes_from_server);
    entry.bytes_worker_to_worker = bytes(&S::bytes_worker_to_worker);
    entry.mean_staleness = over_runs(entry, [](const S& s) { return s.mean_staleness; });
    for (const RunRecord* run : entry.runs)
      entry.max_staleness = std::max(entry.max_staleness, run->summary.max_staleness);
    count_events(entry, comparison.event_types);
    add_staleness(entry);
  }
  const auto bsp = std::find_if(comparison.entries.begin(), comparison.entries.end(),
                                [](const EntryResults& e) { return e.protocol == "bsp"; });
  const EntryResults* baseline = nullptr;
  if (bsp != comparison.entries.end()) {
    comparison.baseline = static_cast<size_t>(bsp - comparison.entries.begin());
    baseline = &*bsp;
  }
  for (EntryResults& entry : comparison.entries) {
    // Times to different targets are not comparable.
    if (comparison.targets.size() > 1) {
      entry.no_speed_up = NoSpeedUp::kTargetsDiffer;
    } else {
      add_speed_up(entry, baseline);
    }
  }
  return comparison;
}

}  // namespace hetps::report
