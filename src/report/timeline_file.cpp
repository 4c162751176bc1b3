#include "report/timeline_file.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "data/user_text.h"
#include "report/csv.h"
#include "report/input_error.h"

namespace hetps::report {
namespace {

constexpr const char* kTimelineHeader = "worker,cycle,activity,start_s,end_s";

// The cells of one row, each read as its column requires, naming the file and line in every
// error.
class CsvLine {
 public:
  CsvLine(const std::filesystem::path& file, int line, const std::string& text)
      : where_(fmt::format("{}:{}", file.string(), line)) {
    try {
      cells_ = split_csv_line(text);
    } catch (const std::invalid_argument& error) {
      throw ReportInputError(fmt::format("{}: {}", where_, error.what()));
    }
    if (cells_.size() != 5) {
      throw ReportInputError(fmt::format("{}: expected 5 cells ({}), got {}: \"{}\"", where_,
                                         kTimelineHeader, cells_.size(), data::shown(text)));
    }
  }

  TimelineRow interval(int workers) const {
    TimelineRow interval;
    const int64_t worker = whole(0, "worker", 0);
    if (worker >= workers) {
      throw ReportInputError(fmt::format(
          "{}: worker {} is not one of the run's {} workers (summary.json's \"workers\"): "
          "expected 0 to {}",
          where_, worker, workers, workers - 1));
    }
    interval.worker = static_cast<int>(worker);
    interval.cycle = whole(1, "cycle", 1);
    const std::optional<Activity> activity = activity_named(cells_[2]);
    if (!activity) {
      throw ReportInputError(fmt::format(
          "{}: activity must be one of compute, straggle, communicate, wait; got \"{}\"", where_,
          data::shown(cells_[2])));
    }
    interval.activity = *activity;
    interval.start = seconds(3, "start_s");
    interval.end = seconds(4, "end_s");
    if (interval.end < interval.start) {
      throw ReportInputError(
          fmt::format("{}: end_s {} is before start_s {}", where_, cells_[4], cells_[3]));
    }
    return interval;
  }

  const std::string& where() const { return where_; }

 private:
  // The cell as a whole number >= `least`.
  int64_t whole(size_t cell, const char* column, int64_t least) const {
    const std::string& text = cells_[cell];
    int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || value < least) {
      throw ReportInputError(fmt::format("{}: {} must be a whole number >= {}, got \"{}\"", where_,
                                         column, least, data::shown(text)));
    }
    return value;
  }

  double seconds(size_t cell, const char* column) const {
    const std::string& text = cells_[cell];
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value) ||
        value < 0) {
      throw ReportInputError(
          fmt::format("{}: {} must be a finite number of seconds >= 0, got \"{}\"", where_, column,
                      data::shown(text)));
    }
    return value;
  }

  std::string where_;
  std::vector<std::string> cells_;
};

// Whether `next` may follow `previous` in the file: by worker, then start, a worker's intervals
// never overlapping and its cycles never going back.
bool in_order(const TimelineRow& previous, const TimelineRow& next) {
  if (next.worker != previous.worker) return next.worker > previous.worker;
  return next.start >= previous.end && next.cycle >= previous.cycle;
}

}  // namespace

std::optional<std::vector<TimelineRow>> read_timeline_file(const std::filesystem::path& file,
                                                           int workers) {
  if (!std::filesystem::exists(file)) return std::nullopt;
  std::ifstream in(file);
  if (!in) throw ReportInputError(fmt::format("{}: unreadable", file.string()));
  // A file edited on Windows or saved by a spreadsheet ends its lines with CRLF, and may begin
  // with a byte order mark: the other files a report reads (JSON) take both.
  const auto next_line = [&in](std::string& text) {
    if (!std::getline(in, text)) return false;
    if (text.ends_with('\r')) text.pop_back();
    return true;
  };
  std::string text;
  next_line(text);
  data::strip_byte_order_mark(text);
  if (text != kTimelineHeader) {
    throw ReportInputError(fmt::format("{}:1: expected the header \"{}\", got \"{}\"",
                                       file.string(), kTimelineHeader, data::shown(text)));
  }
  std::vector<TimelineRow> intervals;
  for (int line = 2; next_line(text); ++line) {
    const CsvLine row(file, line, text);
    const TimelineRow interval = row.interval(workers);
    if (!intervals.empty() && !in_order(intervals.back(), interval)) {
      const TimelineRow& previous = intervals.back();
      throw ReportInputError(fmt::format(
          "{}: worker {} cycle {} from {} s follows worker {} cycle {} until {} s; rows must be "
          "sorted by worker, then start, a worker's intervals never overlapping nor its cycles "
          "going back",
          row.where(), interval.worker, interval.cycle, interval.start, previous.worker,
          previous.cycle, previous.end));
    }
    intervals.push_back(interval);
  }
  return intervals;
}

}  // namespace hetps::report
