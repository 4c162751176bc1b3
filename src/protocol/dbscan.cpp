#include "protocol/dbscan.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace hetps::protocol {
namespace {

constexpr int kUnvisited = -1;
constexpr int kNoise = -2;

std::vector<size_t> neighbours(const Points& points, size_t point, double eps) {
  std::vector<size_t> found;
  for (size_t q = 0; q < points.size(); ++q) {
    if (squared_distance(points[point], points[q]) <= eps * eps) found.push_back(q);
  }
  return found;
}

}  // namespace

Memberships dbscan(const Points& points, const DbscanOptions& options) {
  if (!(options.eps > 0) || !std::isfinite(options.eps)) {
    throw std::invalid_argument(
        fmt::format("dbscan: eps = {}; it must be a positive finite distance", options.eps));
  }
  if (options.min_points < 1) {
    throw std::invalid_argument(
        fmt::format("dbscan: min_points = {}; it must be at least 1", options.min_points));
  }
  check_points(points, "dbscan");
  // The points within eps of `point` when it is a core point; none when it is not.
  const auto core_neighbourhood = [&](size_t point) {
    std::vector<size_t> around = neighbours(points, point, options.eps);
    if (around.size() < static_cast<size_t>(options.min_points)) around.clear();
    return around;
  };
  std::vector<int> labels(points.size(), kUnvisited);
  int communities = 0;
  for (size_t p = 0; p < points.size(); ++p) {
    if (labels[p] != kUnvisited) continue;
    std::vector<size_t> reachable = core_neighbourhood(p);
    if (reachable.empty()) {
      labels[p] = kNoise;  // for now: a core point found later may still claim it as border
      continue;
    }
    const int community = communities++;
    labels[p] = community;
    while (!reachable.empty()) {
      const size_t q = reachable.back();
      reachable.pop_back();
      if (labels[q] == kNoise) labels[q] = community;  // a border point: not core, not expanded
      if (labels[q] != kUnvisited) continue;
      labels[q] = community;
      const std::vector<size_t> further = core_neighbourhood(q);
      reachable.insert(reachable.end(), further.begin(), further.end());
    }
  }
  for (int& label : labels) {
    if (label == kNoise) label = communities++;  // every worker needs a community
  }
  return canonical_memberships(labels);
}

}  // namespace hetps::protocol
