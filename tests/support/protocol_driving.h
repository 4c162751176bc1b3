// Driving a protocol by hand, as an engine would: made from the registry with its defaults
// completed, fed updates, each followed by the pulls that engines then ask for.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "protocol/registry.h"
#include "support/recording_actions.h"

namespace hetps::testing {

inline std::unique_ptr<protocol::Protocol> make_protocol(const std::string& name,
                                                         config::ProtocolParams params = {}) {
  const protocol::ProtocolInfo* info = protocol::find_protocol(name);
  if (info == nullptr) throw std::invalid_argument("no protocol is registered as " + name);
  return info->make(protocol::complete_params(*info, params));
}

inline protocol::UpdateInfo update_from(int worker, int id, int64_t base_version = 0) {
  protocol::UpdateInfo update;
  update.worker = worker;
  update.id = id;
  update.base_version = base_version;
  return update;
}

// An update arrives; then its pusher asks for its next pull and, for a leader's update, each
// member it merged, in id order (protocol.h).
inline void push(protocol::Protocol& protocol, RecordingActions& actions,
                 const protocol::UpdateInfo& update) {
  protocol.on_update(update, actions);
  protocol.on_pull_request(update.worker, actions);
  for (int member : update.members) protocol.on_pull_request(member, actions);
}

}  // namespace hetps::testing
