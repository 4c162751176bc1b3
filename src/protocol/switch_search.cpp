#include "protocol/switch_search.h"

#include <stdexcept>

#include <fmt/format.h>

namespace hetps::protocol {

bool holds_within(double accuracy, double bsp_accuracy, double tolerance) {
  return accuracy >= bsp_accuracy - tolerance;
}

namespace {

constexpr double kFirstHalving = 0.5;

double refined(double held, double failed) { return (held + failed) / 2; }

}  // namespace

std::vector<double> halvings(const SwitchSearchOptions& options) {
  if (!(options.smallest > 0)) {
    throw std::invalid_argument(
        fmt::format("switch search: the smallest x must be above 0, got {}", options.smallest));
  }
  std::vector<double> candidates;
  for (double x = kFirstHalving; x >= options.smallest; x /= 2) candidates.push_back(x);
  return candidates;
}

double largest_candidate(const SwitchSearchOptions& options) {
  return options.refine ? refined(1.0, kFirstHalving) : kFirstHalving;
}

SwitchSearchResult search_switch_point(const std::function<double(double)>& final_accuracy,
                                       const SwitchSearchOptions& options) {
  const std::vector<double> steps = halvings(options);  // checked before any run
  SwitchSearchResult result;
  result.tolerance = options.tolerance;
  result.bsp_accuracy = final_accuracy(1.0);
  const auto holds = [&](double x) {
    const double accuracy = final_accuracy(x);
    result.candidates.push_back({x, accuracy});
    return holds_within(accuracy, result.bsp_accuracy, options.tolerance);
  };
  double held = 1.0;  // the smallest x that held so far
  for (double x : steps) {
    if (!holds(x)) {
      if (options.refine) {
        const double between = refined(held, x);
        if (holds(between)) held = between;
      }
      break;
    }
    held = x;
  }
  result.chosen = held;
  return result;
}

}  // namespace hetps::protocol
