// The hybrid protocols (spec/*.md), as registry entries.
#pragma once

#include "protocol/registry.h"

namespace hetps::protocol {

ProtocolInfo sync_switch_protocol();
ProtocolInfo petrel_protocol();
ProtocolInfo sapus_protocol();
ProtocolInfo ashl_protocol();

}  // namespace hetps::protocol
