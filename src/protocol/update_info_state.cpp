#include "protocol/update_info_state.h"

#include <stdexcept>
#include <string>

#include "checkpoint/saved_integers.h"

namespace hetps::protocol {

const char* update_kind_name(UpdateKind kind) {
  return kind == UpdateKind::Gradient ? "gradient" : "delta";
}

UpdateKind update_kind_named(const std::string& name) {
  if (name == "gradient") return UpdateKind::Gradient;
  if (name == "delta") return UpdateKind::Delta;
  throw std::invalid_argument("update kind '" + name + "': expected \"gradient\" or \"delta\"");
}

void to_json(nlohmann::json& out, const UpdateInfo& info) {
  out = {{"id", info.id},
         {"worker", info.worker},
         {"kind", update_kind_name(info.kind)},
         {"base_version", info.base_version},
         {"clock", info.clock},
         {"steps", info.steps},
         {"samples", info.samples},
         {"train_loss", info.train_loss},
         {"compute_seconds", info.compute_seconds},
         {"comm_seconds", info.comm_seconds},
         {"push_seconds", info.push_seconds},
         {"pull_seconds", info.pull_seconds},
         {"now", info.now},
         {"members", info.members},
         {"merged_step_seconds", info.merged_step_seconds}};
}

void from_json(const nlohmann::json& in, UpdateInfo& info) {
  info.id = checkpoint::integer<int>(in.at("id"));
  info.worker = checkpoint::integer<int>(in.at("worker"));
  info.kind = update_kind_named(in.at("kind").get<std::string>());
  info.base_version = checkpoint::integer<int64_t>(in.at("base_version"));
  info.clock = checkpoint::integer<int64_t>(in.at("clock"));
  info.steps = checkpoint::integer<int>(in.at("steps"));
  info.samples = checkpoint::integer<int64_t>(in.at("samples"));
  info.train_loss = in.at("train_loss").get<double>();
  info.compute_seconds = in.at("compute_seconds").get<double>();
  info.comm_seconds = in.at("comm_seconds").get<double>();
  info.push_seconds = in.at("push_seconds").get<double>();
  info.pull_seconds = in.at("pull_seconds").get<double>();
  info.now = in.at("now").get<double>();
  info.members = checkpoint::integers<std::vector<int>>(in.at("members"));
  info.merged_step_seconds = in.at("merged_step_seconds").get<std::vector<double>>();
}

}  // namespace hetps::protocol
