#include "protocol/silhouette.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace hetps::protocol {
namespace {

// The size of each community; throws unless every point is in one of 2 or more communities and
// none is empty.
std::vector<int> community_sizes(const Points& points, const Memberships& memberships) {
  if (memberships.community_of.size() != points.size()) {
    throw std::invalid_argument(
        fmt::format("silhouette: memberships name {} points but there are {}; one per point",
                    memberships.community_of.size(), points.size()));
  }
  if (memberships.communities < 2) {
    throw std::invalid_argument(
        fmt::format("silhouette: communities = {}; the score is defined only for 2 or more",
                    memberships.communities));
  }
  std::vector<int> sizes(static_cast<size_t>(memberships.communities), 0);
  for (size_t p = 0; p < points.size(); ++p) {
    const int community = memberships.community_of[p];
    if (community < 0 || community >= memberships.communities) {
      throw std::invalid_argument(
          fmt::format("silhouette: point {} is in community {}; communities are 0 ... {}", p,
                      community, memberships.communities - 1));
    }
    ++sizes[static_cast<size_t>(community)];
  }
  const auto empty = std::ranges::find(sizes, 0);
  if (empty != sizes.end()) {
    throw std::invalid_argument(fmt::format("silhouette: community {} of {} has no points",
                                            empty - sizes.begin(), memberships.communities));
  }
  return sizes;
}

}  // namespace

double silhouette_score(const Points& points, const Memberships& memberships) {
  check_points(points, "silhouette");
  const std::vector<int> sizes = community_sizes(points, memberships);
  const auto communities = sizes.size();
  double total = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    const auto own = static_cast<size_t>(memberships.community_of[i]);
    if (sizes[own] == 1) continue;                      // a singleton scores 0
    std::vector<double> distance_to(communities, 0.0);  // summed distance to each community
    for (size_t j = 0; j < points.size(); ++j) {
      distance_to[static_cast<size_t>(memberships.community_of[j])] +=
          std::sqrt(squared_distance(points[i], points[j]));
    }
    const double a = distance_to[own] / (sizes[own] - 1);
    double b = std::numeric_limits<double>::infinity();
    for (size_t c = 0; c < communities; ++c) {
      if (c != own) b = std::min(b, distance_to[c] / sizes[c]);
    }
    const double larger = std::max(a, b);
    if (larger > 0) total += (b - a) / larger;
  }
  return total / static_cast<double>(points.size());
}

}  // namespace hetps::protocol
