#include "cluster/piecewise_constant.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace hetps::cluster {

std::ptrdiff_t PiecewiseConstant::segment_at(double t) const {
  return std::upper_bound(times_.begin(), times_.end(), t) - times_.begin() - 1;
}

double PiecewiseConstant::value_at(double t) const {
  std::ptrdiff_t i = segment_at(t);
  return i < 0 ? initial_ : values_[static_cast<size_t>(i)];
}

double PiecewiseConstant::next_change_after(double t) const {
  auto next = std::upper_bound(times_.begin(), times_.end(), t);
  return next == times_.end() ? std::numeric_limits<double>::infinity() : *next;
}

double PiecewiseConstant::largest_from(double t) const {
  double largest = value_at(t);
  const auto later = static_cast<size_t>(segment_at(t) + 1);
  for (size_t i = later; i < values_.size(); ++i) largest = std::max(largest, values_[i]);
  return largest;
}

void PiecewiseConstant::set_from(double t, double value) {
  if (!times_.empty() && t < times_.back()) {
    throw std::invalid_argument(
        "PiecewiseConstant::set_from: breakpoints must be added in time order");
  }
  if (!times_.empty() && t == times_.back()) {
    values_.back() = value;
    return;
  }
  times_.push_back(t);
  values_.push_back(value);
}

std::ptrdiff_t PiecewiseConstant::split_at(double t) {
  std::ptrdiff_t i = segment_at(t);
  if (i >= 0 && times_[static_cast<size_t>(i)] == t) return i;
  double value = value_at(t);
  times_.insert(times_.begin() + (i + 1), t);
  values_.insert(values_.begin() + (i + 1), value);
  return i + 1;
}

void PiecewiseConstant::multiply(double begin, double end, double factor) {
  if (!(begin < end)) return;
  std::ptrdiff_t first = split_at(begin);
  auto last = std::isinf(end) ? static_cast<std::ptrdiff_t>(times_.size()) : split_at(end);
  for (std::ptrdiff_t i = first; i < last; ++i) values_[static_cast<size_t>(i)] *= factor;
}

}  // namespace hetps::cluster
