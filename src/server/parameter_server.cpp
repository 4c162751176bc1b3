#include "server/parameter_server.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "checkpoint/restoring.h"
#include "checkpoint/saved_integers.h"
#include "checkpoint/state_blob.h"

namespace hetps::server {

namespace {

int checked_only_shard(const ServerOptions& options) {
  if (options.only_shard < -1 || options.only_shard >= options.shards) {
    throw std::invalid_argument(
        "ParameterServer: only_shard " + std::to_string(options.only_shard) +
        " (allowed: -1 for all, or 0 to " + std::to_string(options.shards - 1) + ")");
  }
  return options.only_shard;
}

int checked_apply_threads(const ServerOptions& options) {
  if (options.apply_threads < 1) {
    throw std::invalid_argument("ParameterServer: apply_threads " +
                                std::to_string(options.apply_threads) + " (allowed: 1 or more)");
  }
  return options.apply_threads;
}

}  // namespace

ParameterServer::ParameterServer(const params::ParamLayout& layout,
                                 std::vector<float> initial_model, const ServerOptions& options)
    : model_(std::move(initial_model)),
      ranges_(layout.shard_ranges(static_cast<size_t>(options.shards))),
      team_(checked_apply_threads(options)),
      schedule_(options.schedule),
      momentum_(options.momentum) {
  if (model_.size() != layout.size()) {
    throw std::invalid_argument("ParameterServer: initial model does not match the layout");
  }
  // Each member's share of the keys, split like shards are; a part is where it meets a shard.
  const auto shares = layout.shard_ranges(static_cast<size_t>(team_.size()));
  const int only_shard = checked_only_shard(options);
  for (size_t shard = 0; shard < ranges_.size(); ++shard) {
    if (only_shard >= 0 && shard != static_cast<size_t>(only_shard)) continue;
    const auto& range = ranges_[shard];
    for (int member = 0; member < team_.size(); ++member) {
      const auto& share = shares[static_cast<size_t>(member)];
      const params::KeyRange keys{std::max(range.begin, share.begin),
                                  std::min(range.end, share.end)};
      if (keys.begin < keys.end) {
        parts_.push_back({member, SgdOptimizer(keys, model_, options.sgd)});
      }
    }
  }
}

std::vector<double> ParameterServer::shard_fractions() const {
  std::vector<double> fractions;
  for (const auto& range : ranges_) {
    fractions.push_back(static_cast<double>(range.size()) / static_cast<double>(model_.size()));
  }
  return fractions;
}

void ParameterServer::load_keys(const params::KeyRange& keys, std::span<const float> values) {
  if (keys.end > model_.size() || values.size() != keys.size()) {
    throw std::invalid_argument("ParameterServer::load_keys: " + std::to_string(values.size()) +
                                " values for keys [" + std::to_string(keys.begin) + ", " +
                                std::to_string(keys.end) + ") of a model of " +
                                std::to_string(model_.size()));
  }
  std::copy(values.begin(), values.end(), model_.begin() + static_cast<std::ptrdiff_t>(keys.begin));
}

double ParameterServer::current_lr(int64_t samples_processed) const {
  return schedule_.at(samples_processed) * override_.lr_scale;
}

void ParameterServer::apply(const protocol::ApplyOrder& order,
                            std::span<const float* const> payloads, int64_t samples_processed) {
  // Checked here, not in the team's threads, where an exception could not be caught.
  if (payloads.empty() || payloads.size() != order.weights.size()) {
    throw std::invalid_argument("ParameterServer::apply: " + std::to_string(payloads.size()) +
                                " payloads for " + std::to_string(order.weights.size()) +
                                " weights (need one per weight, at least one)");
  }
  const bool gradients = order.kind == protocol::UpdateKind::Gradient;
  const double lr = current_lr(samples_processed);
  const double momentum = override_.momentum >= 0 ? override_.momentum : momentum_;
  team_.run([&](int member) {
    for (auto& part : parts_) {
      if (part.member != member) continue;
      if (gradients) {
        part.optimizer.apply_gradients(payloads, order.weights, lr, momentum);
      } else {
        part.optimizer.merge_deltas(payloads, order.weights);
      }
    }
  });
  ++version_;
}

nlohmann::json ParameterServer::save_state() const {
  std::vector<float> momentum;
  for (const ApplyPart& part : parts_) {
    const std::vector<float>& buffer = part.optimizer.momentum_buffer();
    momentum.insert(momentum.end(), buffer.begin(), buffer.end());
  }
  return {{"model", checkpoint::floats_blob(model_)},
          {"momentum", checkpoint::floats_blob(momentum)},
          {"version", version_},
          {"override", {{"lr_scale", override_.lr_scale}, {"momentum", override_.momentum}}}};
}

void ParameterServer::restore_state(const nlohmann::json& state) {
  checkpoint::restoring("the parameter server", [&] {
    std::vector<float> model(model_.size());
    checkpoint::read_floats(state.at("model"), model, "model");
    std::vector<float> momentum = checkpoint::floats_from_blob(state.at("momentum"), "momentum");
    size_t held = 0;
    for (const ApplyPart& part : parts_) held += part.optimizer.range().size();
    if (momentum.size() != held) {
      throw checkpoint::CheckpointError(
          fmt::format("momentum: holds {} floats, expected {} (the keys this server applies)",
                      momentum.size(), held));
    }
    const auto version = checkpoint::integer<int64_t>(state.at("version"));
    const nlohmann::json& saved_override = state.at("override");
    const protocol::OptimizerOverride settings{saved_override.at("lr_scale").get<double>(),
                                               saved_override.at("momentum").get<double>()};
    // Copied into model_, never moved: the optimizers point into its buffer.
    std::copy(model.begin(), model.end(), model_.begin());
    auto next = momentum.begin();
    for (ApplyPart& part : parts_) {
      const auto end = next + static_cast<std::ptrdiff_t>(part.optimizer.range().size());
      part.optimizer.restore_momentum({next, end});
      next = end;
    }
    version_ = version;
    override_ = settings;
  });
}

}  // namespace hetps::server
