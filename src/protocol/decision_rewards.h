// The reward of each of an episode's agent decisions (spec/petrel.md, "Configuration agent"):
// that of its decision interval (decision_reward), from the decision to the next one (the run's
// end for the last), measured by the run's own evaluations, the last at or before each end.
#pragma once

#include <cstdint>
#include <vector>

namespace hetps::protocol {

// What one evaluation of the run measured, for the rewards.
struct EvaluationPoint {
  double time = 0;
  double test_loss = 0;
  int64_t bytes_to_server = 0;  // sent so far
};

// One reward per entry of `decision_times` (ascending), over evaluations ascending in time. A
// time before the first evaluation reads the first. A decision the run ended on (an empty
// interval), and every decision of a run without evaluations, earns 0: nothing could follow
// from it.
std::vector<double> decision_rewards(const std::vector<double>& decision_times,
                                     const std::vector<EvaluationPoint>& evaluations,
                                     double end_time, double traffic_penalty);

}  // namespace hetps::protocol
