#include "cli/policy_table.h"

#include <fmt/format.h>

#include "protocol/switch_search.h"

namespace hetps::cli {
namespace {

constexpr const char* kRow = "  {:<9} {:>14} {:>8}  {:<4}  {}\n";

}  // namespace

std::string format_policy_table(const config::SwitchPolicy& policy) {
  std::string text =
      policy.chosen < 1
          ? fmt::format("chosen x = {}: the smallest within {} of BSP's final accuracy {:.4f}\n",
                        policy.chosen, policy.tolerance, policy.bsp_accuracy)
          : fmt::format(
                "chosen x = 1 (BSP throughout): no x held within {} of BSP's final "
                "accuracy {:.4f}\n",
                policy.tolerance, policy.bsp_accuracy);
  text += fmt::format(kRow, "x", "final accuracy", "vs BSP", "held", "run");
  text += fmt::format(kRow, "1 (BSP)", fmt::format("{:.4f}", policy.bsp_accuracy), "", "",
                      policy.bsp_run);
  for (const config::PolicyCandidate& candidate : policy.candidates) {
    const bool held =
        protocol::holds_within(candidate.accuracy, policy.bsp_accuracy, policy.tolerance);
    text += fmt::format(kRow, fmt::format("{}", candidate.bsp_fraction),
                        fmt::format("{:.4f}", candidate.accuracy),
                        fmt::format("{:+.4f}", candidate.accuracy - policy.bsp_accuracy),
                        held ? "yes" : "no", candidate.run);
  }
  return text;
}

}  // namespace hetps::cli
