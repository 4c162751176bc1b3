#include "cluster/trace.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <string_view>
#include <type_traits>

#include <fmt/format.h>

#include "data/dataset.h"
#include "data/file_kind.h"
#include "data/user_text.h"

namespace hetps::cluster {
namespace {

constexpr std::string_view kHeader = "time,worker,speed";

std::string_view trim(std::string_view text) {
  constexpr std::string_view kBlank = " \t\r";
  size_t first = text.find_first_not_of(kBlank);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kBlank) - first + 1);
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  for (size_t begin = 0;;) {
    size_t comma = line.find(',', begin);
    fields.push_back(trim(line.substr(begin, comma - begin)));
    if (comma == std::string_view::npos) return fields;
    begin = comma + 1;
  }
}

// Reports problems at one line of one trace file.
class TraceLine {
 public:
  TraceLine(const std::string& path, int number) : path_(path), number_(number) {}

  [[noreturn]] void fail(std::string_view what) const {
    throw data::DataError(fmt::format("cluster.trace '{}', line {}: {}", path_, number_, what));
  }

  template <typename Number>
  Number parse(std::string_view field, std::string_view column) const {
    Number value{};
    auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
    const bool whole = end == field.data() + field.size() && !field.empty();
    if (error == std::errc::result_out_of_range && whole) {
      fail(fmt::format("{} '{}' is out of the range of {}", column, data::shown(field),
                       std::is_integral_v<Number> ? "an integer" : "a double"));
    }
    if (error != std::errc() || !whole) {
      fail(fmt::format("{} '{}' is not {}", column, data::shown(field),
                       std::is_integral_v<Number> ? "an integer" : "a number"));
    }
    return value;
  }

 private:
  const std::string& path_;
  int number_;
};

}  // namespace

void refuse_a_trace_that_is_no_file(const std::string& path) {
  if (const std::string kind = data::irregular_file_kind(path); !kind.empty()) {
    throw data::DataError(fmt::format("cluster.trace '{}': {}; expected a CSV file", path, kind));
  }
}

std::vector<PiecewiseConstant> read_trace(const std::string& path, int workers) {
  refuse_a_trace_that_is_no_file(path);
  std::ifstream file(path);
  if (!file) throw data::DataError(fmt::format("cluster.trace '{}': cannot open the file", path));

  std::string line;
  if (!std::getline(file, line)) TraceLine(path, 1).fail("the file is empty; expected the header");
  data::strip_byte_order_mark(line);
  if (split_fields(line) != std::vector<std::string_view>{"time", "worker", "speed"}) {
    TraceLine(path, 1).fail(
        fmt::format("the header is '{}'; expected '{}'", data::shown(trim(line)), kHeader));
  }

  std::vector<PiecewiseConstant> speeds(static_cast<size_t>(workers), PiecewiseConstant(1.0));
  std::vector<double> last_time(static_cast<size_t>(workers),
                                -std::numeric_limits<double>::infinity());
  for (int number = 2; std::getline(file, line); ++number) {
    if (trim(line).empty()) continue;
    TraceLine at(path, number);
    std::vector<std::string_view> fields = split_fields(line);
    if (fields.size() != 3) {
      at.fail(fmt::format("{} fields; expected 3 ({})", fields.size(), kHeader));
    }
    auto time = at.parse<double>(fields[0], "time");
    auto worker = at.parse<int>(fields[1], "worker");
    auto speed = at.parse<double>(fields[2], "speed");
    if (!(time >= 0) || !std::isfinite(time)) {
      at.fail(fmt::format("time {} must be a finite number >= 0", time));
    }
    if (worker < 0 || worker >= workers) {
      at.fail(fmt::format("worker {} is outside [0, {}) (cluster.workers = {})", worker, workers,
                          workers));
    }
    if (!(speed > 0) || !std::isfinite(speed)) {
      at.fail(fmt::format("speed {} must be a finite number > 0", speed));
    }
    auto w = static_cast<size_t>(worker);
    if (time < last_time[w]) {
      at.fail(
          fmt::format("time {} of worker {} is before its previous row's time {}; a "
                      "worker's rows must be in non-decreasing time",
                      time, worker, last_time[w]));
    }
    last_time[w] = time;
    speeds[w].set_from(time, speed);
  }
  return speeds;
}

}  // namespace hetps::cluster
