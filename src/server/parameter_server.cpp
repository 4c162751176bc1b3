#include "server/parameter_server.h"

#include <stdexcept>

namespace hetps::server {

ParameterServer::ParameterServer(const params::ParamLayout& layout,
                                 std::vector<float> initial_model, const ServerOptions& options)
    : model_(std::move(initial_model)),
      ranges_(layout.shard_ranges(static_cast<size_t>(options.shards))),
      schedule_(options.schedule),
      momentum_(options.momentum) {
  if (model_.size() != layout.size()) {
    throw std::invalid_argument("ParameterServer: initial model does not match the layout");
  }
  shards_.reserve(ranges_.size());
  for (const auto& range : ranges_) shards_.emplace_back(range, model_, options.sgd);
}

std::vector<double> ParameterServer::shard_fractions() const {
  std::vector<double> fractions;
  for (const auto& range : ranges_) {
    fractions.push_back(static_cast<double>(range.size()) / static_cast<double>(model_.size()));
  }
  return fractions;
}

double ParameterServer::current_lr(int64_t samples_processed) const {
  return schedule_.at(samples_processed) * override_.lr_scale;
}

void ParameterServer::apply(const protocol::ApplyOrder& order,
                            std::span<const float* const> payloads, int64_t samples_processed) {
  if (payloads.size() != order.weights.size()) {
    throw std::invalid_argument("ParameterServer::apply: one payload per weight expected");
  }
  if (order.kind == protocol::UpdateKind::Gradient) {
    const double lr = current_lr(samples_processed);
    const double momentum = override_.momentum >= 0 ? override_.momentum : momentum_;
    for (auto& shard : shards_) shard.apply_gradients(payloads, order.weights, lr, momentum);
  } else {
    for (auto& shard : shards_) shard.merge_deltas(payloads, order.weights);
  }
  ++version_;
}

}  // namespace hetps::server
