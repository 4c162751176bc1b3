// SaPus' global-loss window (spec/sapus.md): the server watches the training losses reported
// with the pushes and adapts the one push threshold θ that every worker applies to its own
// model change.
//
// Every `window` pushes it fits a least-squares line to those pushes' losses (in arrival order)
// and takes the relative drop: how much the line falls across the window, over the window's
// mean loss. A drop above `fast_drop` relaxes θ (× theta_up: training moves fast, communicate
// less); a drop below `slow_drop` tightens it (× theta_down: communicate more); θ stays within
// [theta_min, theta_max]. Windows do not overlap, so each change of θ is judged on pushes made
// under the θ before it.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetps::protocol {

struct ThresholdRule {
  int window = 16;  // pushes per fit
  double fast_drop = 0.05;
  double slow_drop = -1;
  double theta_up = 2.0;
  double theta_down = 0.5;
  double theta_min = 1e-4;
  double theta_max = 1e-2;
};

// The relative drop of a least-squares line through (k, losses[k]): (fit(0) − fit(n−1)) / mean.
// 0 for fewer than two losses or a mean of 0.
double relative_drop(std::span<const double> losses);

class ThresholdWindow {
 public:
  // Throws std::invalid_argument naming the `protocol.` parameter that is out of place: a
  // window below 2, slow_drop above fast_drop, theta_up below 1, theta_down outside (0, 1],
  // theta_min above theta_max, or an initial θ outside [theta_min, theta_max].
  ThresholdWindow(const ThresholdRule& rule, double initial_theta);

  double theta() const { return theta_; }

  // Adds the loss reported with one push. When it completes a window, θ is adapted and the
  // window's relative drop is returned.
  std::optional<double> observe(double loss);

  nlohmann::json save_state() const;
  // Throws std::invalid_argument for a θ outside the rule's range or a window's worth of losses
  // or more (a full window is always cleared).
  void restore_state(const nlohmann::json& state);

 private:
  ThresholdRule rule_;
  double theta_;
  std::vector<double> losses_;  // of the window being filled, in arrival order
};

}  // namespace hetps::protocol
