#include "protocol/threshold_window.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

namespace hetps::protocol {

double relative_drop(std::span<const double> losses) {
  const size_t n = losses.size();
  if (n < 2) return 0;
  const double mean_k = static_cast<double>(n - 1) / 2;
  const double mean_loss =
      std::accumulate(losses.begin(), losses.end(), 0.0) / static_cast<double>(n);
  if (mean_loss == 0) return 0;
  double covariance = 0;
  double variance = 0;
  for (size_t k = 0; k < n; ++k) {
    const double dk = static_cast<double>(k) - mean_k;
    covariance += dk * (losses[k] - mean_loss);
    variance += dk * dk;
  }
  const double slope = covariance / variance;
  return -slope * static_cast<double>(n - 1) / mean_loss;
}

namespace {

void check_threshold_rule(const ThresholdRule& rule, double initial_theta) {
  auto refuse = [](const std::string& problem) {
    throw std::invalid_argument("protocol." + problem);
  };
  if (rule.window < 2) {
    refuse(fmt::format("window = {}: a slope needs at least 2 pushes", rule.window));
  }
  if (rule.slow_drop > rule.fast_drop) {
    refuse(fmt::format("slow_drop = {} is above protocol.fast_drop = {}; it must not be",
                       rule.slow_drop, rule.fast_drop));
  }
  if (!(rule.theta_up >= 1)) {
    refuse(fmt::format("theta_up = {}: relaxing θ must not lower it (at least 1)", rule.theta_up));
  }
  if (!(rule.theta_down > 0 && rule.theta_down <= 1)) {
    refuse(fmt::format("theta_down = {}: tightening θ multiplies it by a factor in (0, 1]",
                       rule.theta_down));
  }
  if (!(rule.theta_min > 0) || rule.theta_min > rule.theta_max) {
    refuse(
        fmt::format("theta_min = {} with protocol.theta_max = {}: need 0 < theta_min <= theta_max",
                    rule.theta_min, rule.theta_max));
  }
  if (!(initial_theta >= rule.theta_min && initial_theta <= rule.theta_max)) {
    refuse(fmt::format("theta = {} is outside [protocol.theta_min, protocol.theta_max] = [{}, {}]",
                       initial_theta, rule.theta_min, rule.theta_max));
  }
}

}  // namespace

ThresholdWindow::ThresholdWindow(const ThresholdRule& rule, double initial_theta)
    : rule_(rule), theta_(initial_theta) {
  check_threshold_rule(rule, initial_theta);
  losses_.reserve(static_cast<size_t>(rule.window));
}

std::optional<double> ThresholdWindow::observe(double loss) {
  losses_.push_back(loss);
  if (losses_.size() < static_cast<size_t>(rule_.window)) return std::nullopt;
  const double drop = relative_drop(losses_);
  losses_.clear();
  if (drop > rule_.fast_drop) {
    theta_ = std::min(theta_ * rule_.theta_up, rule_.theta_max);
  } else if (drop < rule_.slow_drop) {
    theta_ = std::max(theta_ * rule_.theta_down, rule_.theta_min);
  }
  return drop;
}

nlohmann::json ThresholdWindow::save_state() const {
  return {{"theta", theta_}, {"losses", losses_}};
}

void ThresholdWindow::restore_state(const nlohmann::json& state) {
  const double theta = state.at("theta").get<double>();
  auto losses = state.at("losses").get<std::vector<double>>();
  if (!(theta >= rule_.theta_min && theta <= rule_.theta_max) ||
      losses.size() >= static_cast<size_t>(rule_.window)) {
    throw std::invalid_argument(fmt::format(
        "sapus threshold window: the saved state has θ = {} and {} losses; this run allows θ in "
        "[{}, {}] and fewer than {} losses",
        theta, losses.size(), rule_.theta_min, rule_.theta_max, rule_.window));
  }
  theta_ = theta;
  losses_ = std::move(losses);
}

}  // namespace hetps::protocol
