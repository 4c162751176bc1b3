#include "protocol/sapus_rules.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace hetps::protocol {

int delay_bound(double step_seconds, double round_trip_seconds, double rho, int tau_cap) {
  for (double seconds : {step_seconds, round_trip_seconds}) {
    if (!std::isfinite(seconds) || seconds < 0) {
      throw std::invalid_argument(fmt::format(
          "sapus delay bound: a measured time is {} s; times must be finite and at least 0",
          seconds));
    }
  }
  if (!(rho > 0) || tau_cap < 1) {
    throw std::invalid_argument(fmt::format(
        "sapus delay bound: rho = {} and tau_cap = {}; rho must be above 0, tau_cap at least 1",
        rho, tau_cap));
  }
  if (step_seconds == 0) return tau_cap;
  const double steps = std::ceil(rho * round_trip_seconds / step_seconds);
  // Compared as doubles first: a ratio beyond int's range must clamp, not overflow.
  return static_cast<int>(std::clamp(steps, 1.0, static_cast<double>(tau_cap)));
}

double merge_weight(double alpha, int64_t staleness) {
  if (staleness < 0) {
    throw std::invalid_argument(
        fmt::format("sapus merge weight: staleness {} is negative", staleness));
  }
  return alpha / (1.0 + static_cast<double>(staleness));
}

}  // namespace hetps::protocol
