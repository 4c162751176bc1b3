#include "protocol/worker_plan_state.h"

#include "checkpoint/saved_integers.h"
#include "protocol/update_info_state.h"

namespace hetps::protocol {

void to_json(nlohmann::json& out, const WorkerPlan& plan) {
  out = {{"kind", update_kind_name(plan.kind)},       {"max_local_steps", plan.max_local_steps},
         {"change_threshold", plan.change_threshold}, {"keep_ratio", plan.keep_ratio},
         {"error_feedback", plan.error_feedback},     {"send_to", plan.send_to},
         {"gather_from", plan.gather_from},           {"data_shares", plan.data_shares}};
}

void from_json(const nlohmann::json& in, WorkerPlan& plan) {
  plan.kind = update_kind_named(in.at("kind").get<std::string>());
  plan.max_local_steps = checkpoint::integer<int>(in.at("max_local_steps"));
  plan.change_threshold = in.at("change_threshold").get<double>();
  plan.keep_ratio = in.at("keep_ratio").get<double>();
  plan.error_feedback = in.at("error_feedback").get<bool>();
  plan.send_to = checkpoint::integer<int>(in.at("send_to"));
  plan.gather_from = checkpoint::integers<std::vector<int>>(in.at("gather_from"));
  plan.data_shares = in.at("data_shares").get<std::vector<double>>();
}

}  // namespace hetps::protocol
