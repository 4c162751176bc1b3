// Sync-Switch's timing policy, offline (spec/sync-switch.md, "Timing policy"): the switch point
// x is searched over repeated runs of the job — halving from 50% (50, 25, 12.5, 6.25 %), then
// refined once between the last x that held and the first that did not — keeping the smallest
// x whose final accuracy stays within `tolerance` of BSP's. Smaller x are assumed no better once
// one falls short, as the authors' search assumes, so halving stops at the first failure.
#pragma once

#include <functional>
#include <vector>

namespace hetps::protocol {

struct SwitchSearchOptions {
  double tolerance = 0.005;  // accuracy, as a fraction: 0.005 is half a point
  double smallest = 0.0625;  // the last halving step
  bool refine = true;
};

struct SwitchCandidate {
  double bsp_fraction = 0;
  double accuracy = 0;
};

struct SwitchSearchResult {
  double chosen = 1;  // 1: no x held, stay in BSP throughout
  double bsp_accuracy = 0;
  double tolerance = 0;
  std::vector<SwitchCandidate> candidates;  // in the order tried
};

// Whether a candidate's final accuracy is within `tolerance` of BSP's: the search's rule, which
// every report of a search must use too (the same floating-point test decides the boundary).
bool holds_within(double accuracy, double bsp_accuracy, double tolerance);

// The x the search halves through, from 50% down to `smallest`. Throws std::invalid_argument
// for a `smallest` not above 0, which the halving would never reach.
std::vector<double> halvings(const SwitchSearchOptions& options);

// The largest x below 1 the search may try: the refinement between BSP and 50%, or 50%.
double largest_candidate(const SwitchSearchOptions& options);

// `final_accuracy(x)` trains the job with bsp_fraction x and returns its final accuracy; it is
// called first with x = 1 (BSP), then once per candidate.
SwitchSearchResult search_switch_point(const std::function<double(double)>& final_accuracy,
                                       const SwitchSearchOptions& options);

}  // namespace hetps::protocol
