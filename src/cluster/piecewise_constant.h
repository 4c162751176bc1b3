// A function of time that is constant between breakpoints: the trace speed of one worker, or
// the product of the slowdowns of its straggler episodes.
#pragma once

#include <cstddef>
#include <vector>

namespace hetps::cluster {

// Holds `initial` before the first breakpoint and, from each breakpoint on, that breakpoint's
// value until the next one. For example
//   PiecewiseConstant f(1.0);
//   f.set_from(5.0, 0.5);          // f = 1 on (-inf, 5), 0.5 on [5, inf)
//   f.multiply(7.0, 9.0, 3.0);     // f = 1.5 on [7, 9)
//   f.next_change_after(5.0);      // 7
class PiecewiseConstant {
 public:
  explicit PiecewiseConstant(double initial = 1.0) : initial_(initial) {}

  double value_at(double t) const;

  // The first breakpoint strictly after `t`, or +infinity when the value never changes again.
  double next_change_after(double t) const;

  // The largest value it takes from `t` on.
  double largest_from(double t) const;

  // Sets the value from `t` on, replacing everything after `t`'s last breakpoint. `t` must not
  // precede the last breakpoint; at the same time, the later value wins.
  void set_from(double t, double value);

  // Multiplies the value on [begin, end) by `factor`; `end` may be +infinity.
  void multiply(double begin, double end, double factor);

 private:
  // Index of the breakpoint in force at `t`, or -1 before the first one.
  std::ptrdiff_t segment_at(double t) const;
  // Makes `t` a breakpoint (keeping the function unchanged) and returns its index.
  std::ptrdiff_t split_at(double t);

  double initial_;
  std::vector<double> times_;  // sorted, distinct
  std::vector<double> values_;
};

}  // namespace hetps::cluster
