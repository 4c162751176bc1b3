#include "report/plot_data.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "report/csv.h"

namespace hetps::report {
namespace {

// Where a mark at `time` sits on the drawn curve (straight between points); none before the
// curve starts, the last value after it ends.
std::optional<double> value_at(const std::vector<CurvePoint>& curve, double time) {
  if (curve.empty() || time < curve.front().time) return std::nullopt;
  const auto after =
      std::find_if(curve.begin(), curve.end(), [&](const CurvePoint& p) { return p.time > time; });
  if (after == curve.end()) return curve.back().value;
  const CurvePoint& before = *(after - 1);
  const double fraction = (time - before.time) / (after->time - before.time);
  return before.value + fraction * (after->value - before.value);
}

std::string number(double value) { return fmt::format("{}", value); }

std::string number_or_empty(std::optional<double> value) {
  return value ? number(*value) : std::string();
}

void write_curves(const Comparison& comparison, const std::filesystem::path& file,
                  const char* value_column, std::vector<CurvePoint> (*curve_of)(const RunRecord&)) {
  CsvFile csv(file, {"entry_index", "seed", "time", value_column, "entry"});
  for (size_t e = 0; e < comparison.entries.size(); ++e) {
    const EntryResults& entry = comparison.entries[e];
    for (const RunRecord* run : entry.runs) {
      for (const CurvePoint& point : curve_of(*run)) {
        csv.row({fmt::format("{}", e + 1), fmt::format("{}", run->summary.seed), number(point.time),
                 number(point.value), entry.entry});
      }
    }
  }
  csv.close();
}

void write_events(const Comparison& comparison, const std::filesystem::path& file) {
  CsvFile csv(file, {"entry_index", "seed", "type_index", "time", "test_accuracy", "train_loss",
                     "entry", "type"});
  const auto& types = comparison.event_types;
  for (size_t e = 0; e < comparison.entries.size(); ++e) {
    const EntryResults& entry = comparison.entries[e];
    for (const RunRecord* run : entry.runs) {
      const std::vector<CurvePoint> accuracy = accuracy_curve(*run);
      const std::vector<CurvePoint> loss = loss_curve(*run);
      for (const LoggedEvent& event : run->events) {
        const auto type = std::find(types.begin(), types.end(), event.type) - types.begin();
        csv.row({fmt::format("{}", e + 1), fmt::format("{}", run->summary.seed),
                 fmt::format("{}", type + 1), number(event.time),
                 number_or_empty(value_at(accuracy, event.time)),
                 number_or_empty(value_at(loss, event.time)), entry.entry, event.type});
      }
    }
  }
  csv.close();
}

void write_staleness(const Comparison& comparison, const std::filesystem::path& file) {
  CsvFile csv(file, {"entry_index", "staleness", "or_more", "updates", "share", "entry"});
  for (size_t e = 0; e < comparison.entries.size(); ++e) {
    const EntryResults& entry = comparison.entries[e];
    const double total = static_cast<double>(entry.staleness.total_updates());
    for (const auto& bucket : entry.staleness.buckets()) {
      csv.row({fmt::format("{}", e + 1), fmt::format("{}", bucket.staleness),
               bucket.or_more ? "1" : "0", fmt::format("{}", bucket.updates),
               number(static_cast<double>(bucket.updates) / total), entry.entry});
    }
  }
  csv.close();
}

}  // namespace

std::vector<CurvePoint> accuracy_curve(const RunRecord& run) {
  std::vector<CurvePoint> curve;
  for (const Evaluation& e : run.evaluations) curve.push_back({e.time, e.test_accuracy});
  return curve;
}

std::vector<CurvePoint> loss_curve(const RunRecord& run) {
  std::vector<CurvePoint> curve;
  for (const Evaluation& e : run.evaluations) {
    // No point before any sample, nor where the loss diverged (gnuplot leaves a gap).
    if (e.samples > 0 && std::isfinite(e.train_loss)) curve.push_back({e.time, e.train_loss});
  }
  return curve;
}

std::vector<std::string> marked_event_types(const Comparison& comparison) {
  std::vector<std::string> marked;
  for (const std::string& type : comparison.event_types) {
    const bool few = std::all_of(comparison.entries.begin(), comparison.entries.end(),
                                 [&](const EntryResults& entry) {
                                   return entry.events.at(type).max <= kMostMarkedEventsPerRun;
                                 });
    if (few) marked.push_back(type);
  }
  return marked;
}

void write_plot_data(const Comparison& comparison, const std::filesystem::path& directory) {
  write_curves(comparison, directory / kAccuracyData, "test_accuracy", accuracy_curve);
  write_curves(comparison, directory / kLossData, "train_loss", loss_curve);
  write_events(comparison, directory / kEventData);
  write_staleness(comparison, directory / kStalenessData);
}

}  // namespace hetps::report
