// A part's saved state as a checkpoint file carries it: encoded as CBOR and decoded again.
#pragma once

#include <nlohmann/json.hpp>

namespace hetps::testing {

inline nlohmann::json through_cbor(const nlohmann::json& state) {
  return nlohmann::json::from_cbor(nlohmann::json::to_cbor(state));
}

}  // namespace hetps::testing
