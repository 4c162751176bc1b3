// The median of a few values (a profile window), the mean of the two middle ones for an even
// count; 0 for none.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace hetps::protocol {

inline double median(std::vector<double> values) {
  if (values.empty()) return 0;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  if (values.size() % 2 == 1) return *middle;
  return (*middle + *std::max_element(values.begin(), middle)) / 2;
}

}  // namespace hetps::protocol
