// Sync-Switch's server optimizer after it leaves BSP (spec/sync-switch.md, "Configuration
// policy at the switch"): the learning rate divided by the n workers (the authors hit NaN losses
// without it), and momentum by one of the authors' rules — `ramped` (m/n for the first
// `ramp_steps` ASP updates, then m: their best), `multistep` (m/n, doubled every `ramp_steps`
// until m), `scaled` (m/n throughout), `zero`, `keep`. Back in BSP, BSP's own settings return.
#pragma once

#include <cstdint>
#include <string>

#include "protocol/protocol.h"

namespace hetps::protocol {

enum class MomentumRule { Ramped, Multistep, Scaled, Zero, Keep };

struct SwitchSettings {
  bool divide_lr = true;
  MomentumRule momentum_rule = MomentumRule::Ramped;
  int64_t ramp_steps = 200;
};

// Throws std::invalid_argument for a name that is not a rule.
MomentumRule momentum_rule_named(const std::string& name);

// The server optimizer `asp_updates` ASP updates after the switch (0: at the switch), with
// `workers` workers and the configured momentum `momentum`.
OptimizerOverride asp_optimizer(const SwitchSettings& settings, int workers, double momentum,
                                int64_t asp_updates);

}  // namespace hetps::protocol
