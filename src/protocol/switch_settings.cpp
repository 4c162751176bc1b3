#include "protocol/switch_settings.h"

#include <algorithm>
#include <stdexcept>

namespace hetps::protocol {

MomentumRule momentum_rule_named(const std::string& name) {
  if (name == "ramped") return MomentumRule::Ramped;
  if (name == "multistep") return MomentumRule::Multistep;
  if (name == "scaled") return MomentumRule::Scaled;
  if (name == "zero") return MomentumRule::Zero;
  if (name == "keep") return MomentumRule::Keep;
  throw std::invalid_argument("protocol.momentum_rule: unknown rule '" + name +
                              "' (allowed: ramped, multistep, scaled, zero, keep)");
}

OptimizerOverride asp_optimizer(const SwitchSettings& settings, int workers, double momentum,
                                int64_t asp_updates) {
  const double n = static_cast<double>(workers);
  OptimizerOverride optimizer;
  optimizer.lr_scale = settings.divide_lr ? 1.0 / n : 1.0;
  const int64_t stage = asp_updates / settings.ramp_steps;
  switch (settings.momentum_rule) {
    case MomentumRule::Ramped:
      optimizer.momentum = stage == 0 ? momentum / n : momentum;
      break;
    case MomentumRule::Multistep: {
      double scaled = momentum / n;
      for (int64_t s = 0; s < stage && scaled < momentum; ++s) scaled *= 2;
      optimizer.momentum = std::min(scaled, momentum);
      break;
    }
    case MomentumRule::Scaled:
      optimizer.momentum = momentum / n;
      break;
    case MomentumRule::Zero:
      optimizer.momentum = 0;
      break;
    case MomentumRule::Keep:
      optimizer.momentum = momentum;
      break;
  }
  return optimizer;
}

}  // namespace hetps::protocol
