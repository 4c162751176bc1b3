// The data behind every plot, as CSV files beside report.html. Entries are numbered from 1 in
// the table's order (`entry_index`) and event types from 1 in the order of
// Comparison::event_types (`type_index`): the plot scripts select series by these numbers, and
// the names follow in the last columns for a reader.
//   accuracy.csv   entry_index,seed,time,test_accuracy,entry        every evaluation
//   loss.csv       entry_index,seed,time,train_loss,entry           evaluations after training
//   began events.csv     entry_index,seed,type_index,time,test_accuracy,train_loss,entry,type
//                  every record that is not an evaluation, with the curves' values at its time
//                  (linear between evaluations; empty before the curve starts)
//   staleness.csv  entry_index,staleness,or_more,updates,share,entry
//                  updates summed over the seeds that recorded them, share = their fraction of
//                  the entry's updates
// The per-worker timelines' data, timeline-<n>.csv, is timeline_plot.h's.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "report/comparison.h"

namespace hetps::report {

inline constexpr const char* kAccuracyData = "accuracy.csv";
inline constexpr const char* kLossData = "loss.csv";
inline constexpr const char* kEventData = "events.csv";
inline constexpr const char* kStalenessData = "staleness.csv";

// An event type is marked on the curves only when no run logged more of it than this: a type
// logged per update (SaPus's "push") would bury the curves. It is counted in the table and
// listed in events.csv all the same.
inline constexpr int kMostMarkedEventsPerRun = 20;

// One point of a run's curve.
struct CurvePoint {
  double time;
  double value;
};

// Test accuracy at every evaluation.
std::vector<CurvePoint> accuracy_curve(const RunRecord& run);
// Training loss at every evaluation after training began: one before any update reports a
// loss of 0 that no step measured.
std::vector<CurvePoint> loss_curve(const RunRecord& run);

// The types of Comparison::event_types that the curves mark.
std::vector<std::string> marked_event_types(const Comparison& comparison);

// Writes the four files into `directory`. Throws std::runtime_error naming a file it cannot
// write.
void write_plot_data(const Comparison& comparison, const std::filesystem::path& directory);

}  // namespace hetps::report
