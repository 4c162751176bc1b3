// SSP (spec/baselines.md, "SSP"): ASP with the steps of any two workers at most
// `protocol.staleness` apart.

#include "protocol/baselines.h"
#include "protocol/staleness_bounded.h"

namespace hetps::protocol {

ProtocolInfo ssp_protocol() {
  return ProtocolInfo{
      "ssp",
      "stale synchronous parallel: asynchronous within a staleness bound",
      {ParamSpec{"staleness",
                 3.0,
                 "bound s: a worker may start step k once every live worker has pushed k-1-s",
                 0,
                 1e6,
                 true,
                 {}}},
      [](const config::ProtocolParams& params) {
        auto bound = static_cast<int64_t>(std::get<double>(params.at("staleness")));
        return std::make_unique<StalenessBounded>("ssp", bound);
      }};
}

}  // namespace hetps::protocol
