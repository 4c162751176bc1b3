// BSP (spec/baselines.md, "BSP"): one gradient from every live worker per round, averaged and
// applied through the server optimizer in one step; staleness is always 0.
#include "protocol/baselines.h"
#include "protocol/synchronous_rounds.h"

namespace hetps::protocol {

ProtocolInfo bsp_protocol() {
  return ProtocolInfo{
      "bsp",
      "bulk synchronous parallel: every round averages one gradient from each live worker",
      {},
      [](const config::ProtocolParams&) {
        return std::make_unique<SynchronousRounds>("bsp", WorkerPlan{});
      }};
}

}  // namespace hetps::protocol
