// ASHL's planning (spec/ashl.md, Algorithms 1 and 2) as pure functions of the profiled times:
// how many local steps each worker takes between commits, its share of the data, and the
// fraction of its model delta it sends.
//
//   AshlProfile profile{.workers = {{.t_iter = 0.001, .t_push = 0.0007, .t_pull = 0.0005}, ...},
//                       .t_compress = 0.0001};
//   StagePlan ahl = plan_local_steps(profile, {8, "protocol.h_preset_ahl"});
//   std::vector<double> r = plan_keep_ratios(profile, ahl.local_steps, {0.5, "protocol.r_preset"},
//                                            {0.01, "protocol.min_ratio"});
#pragma once

#include <span>
#include <string_view>
#include <vector>

namespace hetps::protocol {

// One worker's profiled times, in seconds.
struct WorkerTimes {
  double t_iter = 0;  // one local step: T_iter[i]
  double t_push = 0;  // pushing one dense model delta: T_push[i]
  double t_pull = 0;  // pulling the global model: T_pull[i]
};

struct AshlProfile {
  std::vector<WorkerTimes> workers;  // the live workers', in the order the caller lists them
  double t_compress = 0;             // compressing one delta: T_compress, in seconds
  // The workers' ids, which errors name (after a failure they are not the positions); empty:
  // the positions are the ids.
  std::vector<int> ids = {};
};

// A preset with its name as the user sets it (e.g. "protocol.h_preset_ahl"): an error about the
// value quotes that name.
template <typename T>
struct NamedPreset {
  T value;
  std::string_view name;
};

struct StagePlan {
  std::vector<int> local_steps;     // H[i], at least 1
  std::vector<double> data_shares;  // D[i] = H[i] / Σ_j H[j]: they sum to 1 up to rounding
};

// Algorithm 1 for one stage:
//   T_update[i] = T_iter[i]·H_preset + T_push[i] + T_pull[i],   T_comm[i] = T_push[i] + T_pull[i]
//   T_max = max_i T_update[i]
//   H[i] = max(1, round((T_max − T_comm[i]) / T_iter[i])),      D[i] = H[i] / Σ_j H[j]
// so that every worker's round (H[i] steps, a push and a pull) takes about T_max. `round` is
// std::round (halves away from zero). Throws std::invalid_argument for a bad profile (see
// plan_keep_ratios), h_preset below 1, or an H[i] beyond int's range.
StagePlan plan_local_steps(const AshlProfile& profile, NamedPreset<int> h_preset);

// Algorithm 2, with `local_steps` the stage's H from Algorithm 1:
//   T_update[i] = T_iter[i]·H[i] + T_compress + T_push[i]·r_preset + T_pull[i]
//   T_rest[i]   = T_iter[i]·H[i] + T_compress + T_pull[i]
//   T_max = max_i T_update[i]
//   R[i] = max(min_ratio, min(1, (T_max − T_rest[i]) / T_push[i]))
// A worker whose T_push[i] is 0 (an ideal link) gets R[i] = 1: compressing saves it nothing, and
// the formula's limit as T_push[i] → 0 is 1 (or 0/0 for the worker that sets T_max).
// Throws std::invalid_argument for: no workers; a time that is negative or not finite; a T_iter
// of 0; `local_steps` of another count than the workers, or an H below 1; r_preset or
// min_ratio outside (0, 1].
std::vector<double> plan_keep_ratios(const AshlProfile& profile, std::span<const int> local_steps,
                                     NamedPreset<double> r_preset, NamedPreset<double> min_ratio);

}  // namespace hetps::protocol
