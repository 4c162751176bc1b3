#include "server/lr_schedule.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace hetps::server {

LrSchedule::LrSchedule(LrScheduleOptions options) : options_(std::move(options)) {
  if (options_.kind != "constant" && options_.kind != "step" && options_.kind != "cosine") {
    throw std::invalid_argument("train.lr_schedule: expected constant, step or cosine, got '" +
                                options_.kind + "'");
  }
}

double LrSchedule::at(int64_t samples) const {
  double lr = options_.base_lr;
  if (options_.kind == "step" && options_.step_samples > 0) {
    lr *= std::pow(options_.step_gamma, static_cast<double>(samples / options_.step_samples));
  } else if (options_.kind == "cosine" && options_.total_samples > 0) {
    double progress =
        std::min(1.0, static_cast<double>(samples) / static_cast<double>(options_.total_samples));
    lr *= 0.5 * (1.0 + std::cos(std::numbers::pi * progress));
  }
  if (options_.warmup_samples > 0 && samples < options_.warmup_samples) {
    // Start at a small fraction, not zero: a first update with lr 0 would be wasted work.
    lr *= static_cast<double>(samples + 1) / static_cast<double>(options_.warmup_samples);
  }
  return lr;
}

}  // namespace hetps::server
