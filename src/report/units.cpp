#include "report/units.h"

#include <iterator>

#include <fmt/format.h>

namespace hetps::report {

std::string format_bytes(double bytes) {
  constexpr const char* kUnits[] = {"B", "kB", "MB", "GB", "TB"};
  size_t unit = 0;
  while (bytes >= 1000 && unit + 1 < std::size(kUnits)) {
    bytes /= 1000;
    ++unit;
  }
  return fmt::format("{:.{}f} {}", bytes, unit == 0 ? 0 : 2, kUnits[unit]);
}

}  // namespace hetps::report
