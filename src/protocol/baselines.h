// The four baseline protocols of spec/baselines.md, as registry entries.
#pragma once

#include "protocol/registry.h"

namespace hetps::protocol {

ProtocolInfo bsp_protocol();
ProtocolInfo asp_protocol();
ProtocolInfo ssp_protocol();
ProtocolInfo local_sgd_protocol();

}  // namespace hetps::protocol
