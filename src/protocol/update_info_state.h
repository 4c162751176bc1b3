// An UpdateInfo as checkpoint state, every field of it: the updates a checkpoint holds in
// flight come back exactly as the protocol was told of them (doubles as JSON numbers, which a
// checkpoint's CBOR keeps as float64).
//
//   nlohmann::json saved = info;                     // to_json
//   UpdateInfo back = saved.get<UpdateInfo>();       // from_json: the same fields, bit for bit
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "protocol/protocol.h"

namespace hetps::protocol {

// An update kind as checkpoints name it: "gradient" or "delta"; `update_kind_named` throws
// std::invalid_argument for any other name.
const char* update_kind_name(UpdateKind kind);
UpdateKind update_kind_named(const std::string& name);

void to_json(nlohmann::json& out, const UpdateInfo& info);
// Throws nlohmann::json::exception for a missing field or one of the wrong type, and
// std::invalid_argument for a kind other than "gradient" or "delta".
void from_json(const nlohmann::json& in, UpdateInfo& info);

}  // namespace hetps::protocol
