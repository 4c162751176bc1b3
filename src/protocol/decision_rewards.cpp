#include "protocol/decision_rewards.h"

#include <algorithm>

#include "protocol/community_agent.h"

namespace hetps::protocol {
namespace {

// The last evaluation at or before `time`, the first when none is. `evaluations` is not empty.
const EvaluationPoint& evaluation_at(const std::vector<EvaluationPoint>& evaluations, double time) {
  const auto after =
      std::upper_bound(evaluations.begin(), evaluations.end(), time,
                       [](double t, const EvaluationPoint& point) { return t < point.time; });
  return after == evaluations.begin() ? *after : *(after - 1);
}

}  // namespace

std::vector<double> decision_rewards(const std::vector<double>& decision_times,
                                     const std::vector<EvaluationPoint>& evaluations,
                                     double end_time, double traffic_penalty) {
  std::vector<double> rewards;
  for (size_t d = 0; d < decision_times.size(); ++d) {
    const double start = decision_times[d];
    const double end = d + 1 < decision_times.size() ? decision_times[d + 1] : end_time;
    if (!(end > start) || evaluations.empty()) {
      rewards.push_back(0);
      continue;
    }
    const EvaluationPoint& before = evaluation_at(evaluations, start);
    const EvaluationPoint& after = evaluation_at(evaluations, end);
    rewards.push_back(
        decision_reward({end - start, before.test_loss, after.test_loss,
                         static_cast<double>(after.bytes_to_server - before.bytes_to_server)},
                        traffic_penalty));
  }
  return rewards;
}

}  // namespace hetps::protocol
