// A WorkerPlan as checkpoint state, every field of it: a pull reply that a checkpoint holds back
// (the threads engine's) reaches its worker after the resume exactly as the protocol made it.
//
//   nlohmann::json saved = plan;                    // to_json
//   WorkerPlan back = saved.get<WorkerPlan>();      // from_json: an equal plan
#pragma once

#include <nlohmann/json.hpp>

#include "protocol/protocol.h"

namespace hetps::protocol {

void to_json(nlohmann::json& out, const WorkerPlan& plan);
// Throws nlohmann::json::exception for a missing field or one of the wrong type, and
// std::invalid_argument for a kind other than "gradient" or "delta".
void from_json(const nlohmann::json& in, WorkerPlan& plan);

}  // namespace hetps::protocol
