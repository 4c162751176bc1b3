// The result of `hetps tune sync-switch` as text: the chosen x, then one row per run of the
// search (BSP's first) with its final accuracy, its difference from BSP's, whether it held
// (stayed within the tolerance) and its run directory.
#pragma once

#include <string>

#include "config/switch_policy.h"

namespace hetps::cli {

std::string format_policy_table(const config::SwitchPolicy& policy);

}  // namespace hetps::cli
