#include "report/run_log_file.h"

#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/input_error.h"

namespace hetps::report {
namespace {

using nlohmann::json;

class LogLine {
 public:
  LogLine(const std::filesystem::path& file, int line, const std::string& text)
      : where_(fmt::format("{}:{}", file.string(), line)) {
    try {
      record_ = json::parse(text);
    } catch (const json::parse_error& error) {
      throw ReportInputError(
          fmt::format("{}: expected a JSON object (one record a line): {}", where_, error.what()));
    }
    if (!record_.is_object()) {
      throw ReportInputError(fmt::format("{}: expected a JSON object (one record a line), got {}",
                                         where_, record_.type_name()));
    }
  }

  std::string type() const {
    if (!record_.contains("type") || !record_.at("type").is_string()) {
      throw ReportInputError(
          fmt::format("{}: expected a \"type\" string (\"eval\", \"phase\", "
                      "...) in every record",
                      where_));
    }
    return record_.at("type").get<std::string>();
  }

  double number(const char* key) const {
    if (!record_.contains(key) || !record_.at(key).is_number()) {
      throw ReportInputError(
          fmt::format("{}: expected a \"{}\" number in this {} record", where_, key, type()));
    }
    return record_.at(key).get<double>();
  }

  // A run's time: from 0, as its clock starts there.
  double time() const {
    const double time = number("time");
    if (!(time >= 0) || !std::isfinite(time)) {
      throw ReportInputError(
          fmt::format("{}: expected a \"time\" of 0 s or more in this {} record, got {}", where_,
                      type(), time));
    }
    return time;
  }

  int64_t count(const char* key) const {
    if (!record_.contains(key) || !record_.at(key).is_number_unsigned()) {
      throw ReportInputError(fmt::format(
          "{}: expected a \"{}\" whole number >= 0 in this {} record", where_, key, type()));
    }
    const uint64_t value = record_.at(key).get<uint64_t>();
    if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      throw ReportInputError(
          fmt::format("{}: expected a \"{}\" below 2^63 in this {} record", where_, key, type()));
    }
    return static_cast<int64_t>(value);
  }

  // A loss, which a diverged run logs as null (JSON has no NaN): NaN then.
  double loss(const char* key) const {
    if (record_.contains(key) && record_.at(key).is_null()) {
      return std::numeric_limits<double>::quiet_NaN();
    }
    return number(key);
  }

 private:
  std::string where_;
  json record_;
};

}  // namespace

RunLogFile read_run_log(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) {
    throw ReportInputError(
        fmt::format("{}: missing or unreadable (every run writes its log)", file.string()));
  }
  RunLogFile log;
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    const LogLine record(file, line, text);
    const std::string type = record.type();
    if (type == "eval") {
      log.evaluations.push_back({record.time(), record.count("samples"),
                                 record.number("test_accuracy"), record.loss("train_loss")});
    } else {
      log.events.push_back({record.time(), type});
    }
  }
  if (log.evaluations.empty()) {
    throw ReportInputError(
        fmt::format("{}: no \"eval\" record (a finished run logs at least its final evaluation)",
                    file.string()));
  }
  return log;
}

}  // namespace hetps::report
