#include "report/summary_file.h"

#include <fstream>
#include <limits>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/input_error.h"

namespace hetps::report {
namespace {

using nlohmann::json;

// Reads the fields of one JSON object, naming the file and the object in every error.
class Fields {
 public:
  Fields(const json& object, std::string where) : object_(object), where_(std::move(where)) {}

  double number(const char* key) const {
    const json& value = at(key, "a number");
    if (!value.is_number()) fail(key, "a number", value);
    return value.get<double>();
  }
  uint64_t whole(const char* key) const {
    const json& value = at(key, "a whole number >= 0");
    if (!value.is_number_unsigned()) fail(key, "a whole number >= 0", value);
    return value.get<uint64_t>();
  }
  int64_t count(const char* key) const {
    const uint64_t value = whole(key);
    if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      fail(key, "a count below 2^63", object_.at(key));
    return static_cast<int64_t>(value);
  }
  // A count kept as an int (the workers).
  int positive_int(const char* key) const {
    const int64_t value = count(key);
    if (value < 1 || value > std::numeric_limits<int>::max())
      fail(key, "a whole number from 1 to 2^31 - 1", object_.at(key));
    return static_cast<int>(value);
  }
  std::string text(const char* key) const {
    const json& value = at(key, "a string");
    if (!value.is_string()) fail(key, "a string", value);
    return value.get<std::string>();
  }
  std::optional<double> number_or_null(const char* key) const {
    const json& value = at(key, "a number or null");
    if (value.is_null()) return std::nullopt;
    if (!value.is_number()) fail(key, "a number or null", value);
    return value.get<double>();
  }
  bool flag_or_false(const char* key) const {
    if (!object_.contains(key)) return false;
    const json& value = object_.at(key);
    if (!value.is_boolean()) fail(key, "true or false", value);
    return value.get<bool>();
  }

 private:
  const json& at(const char* key, const char* expected) const {
    if (!object_.contains(key))
      throw ReportInputError(fmt::format("{}: missing \"{}\" ({})", where_, key, expected));
    return object_.at(key);
  }
  [[noreturn]] void fail(const char* key, const char* expected, const json& value) const {
    throw ReportInputError(
        fmt::format("{}: \"{}\" must be {}, got {}", where_, key, expected, value.dump()));
  }

  const json& object_;
  std::string where_;
};

metrics::StalenessHistogram read_histogram(const json& buckets, const std::string& file) {
  if (!buckets.is_array()) {
    throw ReportInputError(fmt::format(
        "{}: \"staleness_histogram\" must be an array of buckets, got {}", file, buckets.dump()));
  }
  metrics::StalenessHistogram histogram;
  for (size_t i = 0; i < buckets.size(); ++i) {
    const std::string where = fmt::format("{}: staleness_histogram[{}]", file, i);
    if (!buckets[i].is_object()) {
      throw ReportInputError(
          fmt::format("{}: expected an object {{\"staleness\": S, "
                      "\"updates\": N}}, got {}",
                      where, buckets[i].dump()));
    }
    const Fields bucket(buckets[i], where);
    const int64_t staleness = bucket.count("staleness");
    // A shared bucket elsewhere than ours would be counted as exact: refuse it.
    constexpr int64_t kOverflow = metrics::StalenessHistogram::kOverflowStaleness;
    if (bucket.flag_or_false("or_more") != (staleness == kOverflow)) {
      throw ReportInputError(fmt::format(
          "{}: only staleness {} is the shared bucket with \"or_more\": true, got staleness {}",
          where, kOverflow, staleness));
    }
    histogram.add(staleness, bucket.count("updates"));
  }
  return histogram;
}

}  // namespace

SummaryFile read_summary_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) {
    throw ReportInputError(fmt::format(
        "{}: missing or unreadable (a run writes it when it finishes; was it interrupted?)",
        file.string()));
  }
  json object;
  try {
    object = json::parse(in);
  } catch (const json::parse_error& error) {
    throw ReportInputError(
        fmt::format("{}: expected a JSON object: {}", file.string(), error.what()));
  }
  if (!object.is_object()) {
    throw ReportInputError(
        fmt::format("{}: expected a JSON object, got {}", file.string(), object.type_name()));
  }
  const Fields fields(object, file.string());
  SummaryFile result;
  metrics::Summary& s = result.summary;
  s.protocol = fields.text("protocol");
  s.run_name = fields.text("run_name");
  s.engine = fields.text("engine");
  s.workers = fields.positive_int("workers");
  s.seed = fields.whole("seed");
  s.final_accuracy = fields.number("final_accuracy");
  s.best_accuracy = fields.number("best_accuracy");
  s.target_accuracy = fields.number("target_accuracy");
  s.time_to_target = fields.number_or_null("time_to_target");
  s.total_time = fields.number("total_time");
  s.samples = fields.count("samples");
  s.updates = fields.count("updates");
  s.bytes_to_server = fields.count("bytes_to_server");
  s.bytes_from_server = fields.count("bytes_from_server");
  s.bytes_worker_to_worker = fields.count("bytes_worker_to_worker");
  s.mean_staleness = fields.number("mean_staleness");
  s.max_staleness = fields.count("max_staleness");
  s.wall_seconds = fields.number("wall_seconds");
  s.stop_reason = fields.text("stop_reason");
  if (object.contains("staleness_histogram")) {
    s.staleness_histogram = read_histogram(object.at("staleness_histogram"), file.string());
    result.staleness_recorded = true;
  }
  if (object.contains("timeline_cycle_stride")) {
    result.timeline_cycle_stride = fields.count("timeline_cycle_stride");
    if (*result.timeline_cycle_stride < 1) {
      throw ReportInputError(fmt::format(
          "{}: \"timeline_cycle_stride\" must be a whole number >= 1 (1: every cycle kept), got {}",
          file.string(), *result.timeline_cycle_stride));
    }
  }
  if (object.contains("timeline_whole_cycles")) {
    result.timeline_whole_cycles = fields.count("timeline_whole_cycles");
    if (result.timeline_whole_cycles < 0) {
      throw ReportInputError(
          fmt::format("{}: \"timeline_whole_cycles\" must be a whole number >= 0, got {}",
                      file.string(), result.timeline_whole_cycles));
    }
  }
  return result;
}

}  // namespace hetps::report
