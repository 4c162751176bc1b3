// ASP (spec/baselines.md, "ASP"): each gradient applied on arrival; no pull ever waits.
#include "protocol/baselines.h"
#include "protocol/staleness_bounded.h"

namespace hetps::protocol {

ProtocolInfo asp_protocol() {
  return ProtocolInfo{"asp",
                      "asynchronous parallel: every gradient is applied on arrival, no waiting",
                      {},
                      [](const config::ProtocolParams&) {
                        return std::make_unique<StalenessBounded>("asp", kUnbounded);
                      }};
}

}  // namespace hetps::protocol
