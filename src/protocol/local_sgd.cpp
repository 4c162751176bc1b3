// Local SGD, synchronous variant (spec/baselines.md, "Local SGD"): every worker takes H local
// steps with its own optimizer, pushes its model delta; the server applies the mean of the
// live workers' deltas, and everyone pulls the new model.
#include "protocol/baselines.h"
#include "protocol/synchronous_rounds.h"

namespace hetps::protocol {

ProtocolInfo local_sgd_protocol() {
  return ProtocolInfo{
      "local_sgd",
      "periodic averaging: H local steps, then the mean of every live worker's delta",
      {ParamSpec{"local_steps", 8.0, "H: local steps between two averagings", 1, 1e6, true, {}}},
      [](const config::ProtocolParams& params) {
        WorkerPlan plan;
        plan.kind = UpdateKind::Delta;
        plan.max_local_steps = static_cast<int>(std::get<double>(params.at("local_steps")));
        return std::make_unique<SynchronousRounds>("local_sgd", plan);
      }};
}

}  // namespace hetps::protocol
