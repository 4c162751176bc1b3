// A test protocol whose workers push top-k compressed model deltas (WorkerPlan::keep_ratio):
// synchronous local SGD (protocol::SynchronousRounds: every live worker's delta, merged in
// worker-id order as their mean, one version per round), so a run is deterministic on every
// engine. Registered as "topk_local_sgd" with `local_steps` and `keep_ratio`; `gradient = 1`
// plans one gradient step instead, which no engine may compress; `error_feedback = 0` compresses
// without error feedback; `first_share` > 0 plans data
// shares for three workers (the contract's cluster): that much for worker 0, the rest halved.
#pragma once

#include <memory>

#include "protocol/registry.h"
#include "protocol/synchronous_rounds.h"

namespace hetps::testing {

// Known as "topk_local_sgd" while the registration lives.
inline protocol::ProtocolRegistration compressed_rounds_registration() {
  return protocol::ProtocolRegistration(
      {"topk_local_sgd",
       "test: synchronous local SGD with top-k compressed deltas",
       {{"local_steps", 2.0, "H: local steps between two averagings", 1, 1000, true, {}},
        {"keep_ratio", 0.1, "the fraction of each delta's entries sent", 0, 1, false, {}},
        {"gradient", 0.0, "1: plan one gradient step instead of local steps", 0, 1, true, {}},
        {"error_feedback", 1.0, "0: compress without error feedback", 0, 1, true, {}},
        {"first_share", 0.0, "worker 0's data share of three (0: no shares)", 0, 1, false, {}}},
       [](const config::ProtocolParams& params) {
         protocol::WorkerPlan plan;
         const bool gradient = std::get<double>(params.at("gradient")) == 1.0;
         plan.kind = gradient ? protocol::UpdateKind::Gradient : protocol::UpdateKind::Delta;
         plan.max_local_steps =
             gradient ? 1 : static_cast<int>(std::get<double>(params.at("local_steps")));
         plan.keep_ratio = std::get<double>(params.at("keep_ratio"));
         plan.error_feedback = std::get<double>(params.at("error_feedback")) == 1.0;
         if (const double first = std::get<double>(params.at("first_share")); first > 0) {
           plan.data_shares = {first, (1 - first) / 2, (1 - first) / 2};
         }
         return std::make_unique<protocol::SynchronousRounds>("topk_local_sgd", plan);
       }});
}

}  // namespace hetps::testing
