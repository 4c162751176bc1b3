#include "protocol/ashl_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace hetps::protocol {
namespace {

void check_profiled_time(double seconds, std::string_view what) {
  if (!std::isfinite(seconds) || seconds < 0) {
    throw std::invalid_argument(fmt::format(
        "ASHL profile: {} is {}; it must be a finite time of at least 0 seconds", what, seconds));
  }
}

size_t id_of(const AshlProfile& profile, size_t position) {
  return profile.ids.empty() ? position : static_cast<size_t>(profile.ids.at(position));
}

void check_ashl_profile(const AshlProfile& profile) {
  if (profile.workers.empty()) {
    throw std::invalid_argument("ASHL profile: no workers; there must be at least 1 to plan for");
  }
  for (size_t w = 0; w < profile.workers.size(); ++w) {
    const WorkerTimes& times = profile.workers[w];
    const size_t id = id_of(profile, w);
    check_profiled_time(times.t_iter, fmt::format("t_iter of worker {}", id));
    check_profiled_time(times.t_push, fmt::format("t_push of worker {}", id));
    check_profiled_time(times.t_pull, fmt::format("t_pull of worker {}", id));
    if (times.t_iter == 0) {
      throw std::invalid_argument(
          fmt::format("ASHL profile: t_iter of worker {} is 0; a step takes time", id));
    }
  }
  check_profiled_time(profile.t_compress, "t_compress");
}

void check_ratio_preset(NamedPreset<double> ratio) {
  if (!(ratio.value > 0 && ratio.value <= 1)) {
    throw std::invalid_argument(
        fmt::format("{} = {}; it must be in (0, 1]", ratio.name, ratio.value));
  }
}

void check_planned_steps(const AshlProfile& profile, std::span<const int> local_steps) {
  if (local_steps.size() != profile.workers.size()) {
    throw std::invalid_argument(
        fmt::format("ASHL keep ratios: {} local step counts for {} workers; one per worker",
                    local_steps.size(), profile.workers.size()));
  }
  for (size_t w = 0; w < local_steps.size(); ++w) {
    if (local_steps[w] < 1) {
      throw std::invalid_argument(
          fmt::format("ASHL keep ratios: worker {} takes {} local steps; it must take at least 1",
                      id_of(profile, w), local_steps[w]));
    }
  }
}

}  // namespace

StagePlan plan_local_steps(const AshlProfile& profile, NamedPreset<int> h_preset) {
  check_ashl_profile(profile);
  if (h_preset.value < 1) {
    throw std::invalid_argument(
        fmt::format("{} = {}; it must be at least 1 local step", h_preset.name, h_preset.value));
  }
  const auto comm = [](const WorkerTimes& times) { return times.t_push + times.t_pull; };
  double t_max = 0;
  for (const WorkerTimes& times : profile.workers) {
    t_max = std::max(t_max, times.t_iter * h_preset.value + comm(times));
  }
  StagePlan plan;
  double total_steps = 0;
  for (size_t w = 0; w < profile.workers.size(); ++w) {
    const WorkerTimes& times = profile.workers[w];
    const double steps = std::max(1.0, std::round((t_max - comm(times)) / times.t_iter));
    if (steps > std::numeric_limits<int>::max()) {
      throw std::invalid_argument(fmt::format(
          "ASHL profile: t_iter of worker {} is {} s, so small beside the slowest round ({} s) "
          "that it would take {} local steps per round, more than {}",
          id_of(profile, w), times.t_iter, t_max, steps, std::numeric_limits<int>::max()));
    }
    plan.local_steps.push_back(static_cast<int>(steps));
    total_steps += steps;
  }
  for (const int steps : plan.local_steps) plan.data_shares.push_back(steps / total_steps);
  return plan;
}

std::vector<double> plan_keep_ratios(const AshlProfile& profile, std::span<const int> local_steps,
                                     NamedPreset<double> r_preset, NamedPreset<double> min_ratio) {
  check_ashl_profile(profile);
  check_planned_steps(profile, local_steps);
  check_ratio_preset(r_preset);
  check_ratio_preset(min_ratio);
  std::vector<double> t_rest;
  double t_max = 0;
  for (size_t w = 0; w < profile.workers.size(); ++w) {
    const WorkerTimes& times = profile.workers[w];
    t_rest.push_back(times.t_iter * local_steps[w] + profile.t_compress + times.t_pull);
    t_max = std::max(t_max, t_rest.back() + times.t_push * r_preset.value);
  }
  std::vector<double> ratios;
  for (size_t w = 0; w < profile.workers.size(); ++w) {
    const double t_push = profile.workers[w].t_push;
    const double ratio = t_push == 0 ? 1.0 : std::min(1.0, (t_max - t_rest[w]) / t_push);
    ratios.push_back(std::max(min_ratio.value, ratio));
  }
  return ratios;
}

}  // namespace hetps::protocol
