// SaPus' two per-push rules (spec/sapus.md; hetps's design on the paper's named ingredients).
#pragma once

#include <cstdint>

namespace hetps::protocol {

// The performance model's delay bound: τ_max = clamp(ceil(ρ · t_comm / t_iter), 1, tau_cap).
// A worker on a slow link computes longer between pushes, so that communication stays about
// 1/(1+ρ) of its time. A step time of 0 (nothing measured to divide by) gives tau_cap. Throws
// std::invalid_argument for a time that is negative or not finite, ρ ≤ 0 or tau_cap < 1.
int delay_bound(double step_seconds, double round_trip_seconds, double rho, int tau_cap);

// The weight of a pushed model delta that is `staleness` updates old: α / (1 + d). Throws
// std::invalid_argument for a negative staleness.
double merge_weight(double alpha, int64_t staleness);

}  // namespace hetps::protocol
