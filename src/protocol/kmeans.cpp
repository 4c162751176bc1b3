#include "protocol/kmeans.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include "data/random.h"

namespace hetps::protocol {
namespace {

using Centres = std::vector<std::vector<double>>;

// k-means++: the first centre is a point drawn uniformly, each next one a point drawn with
// probability proportional to its squared distance from the nearest centre so far. Stops early
// when every point sits on a centre (fewer distinct points than K).
Centres seed_centres(const Points& points, int communities, std::mt19937_64& rng) {
  Centres centres{points[data::uniform_below(rng, points.size())]};
  std::vector<double> nearest(points.size());
  for (size_t p = 0; p < points.size(); ++p) nearest[p] = squared_distance(points[p], centres[0]);
  while (centres.size() < static_cast<size_t>(communities)) {
    double total = 0;
    for (double d : nearest) total += d;
    if (total == 0) break;
    // The first point whose running sum passes the draw; zero-weight points are never chosen.
    const double draw = data::uniform01(rng) * total;
    double running = 0;
    size_t chosen = 0;
    for (; chosen + 1 < points.size(); ++chosen) {
      running += nearest[chosen];
      if (running > draw) break;
    }
    centres.push_back(points[chosen]);
    for (size_t p = 0; p < points.size(); ++p) {
      nearest[p] = std::min(nearest[p], squared_distance(points[p], centres.back()));
    }
  }
  return centres;
}

int nearest_centre(const std::vector<double>& point, const Centres& centres) {
  int best = 0;
  double best_distance = squared_distance(point, centres[0]);
  for (size_t c = 1; c < centres.size(); ++c) {
    const double distance = squared_distance(point, centres[c]);
    if (distance < best_distance) {
      best = static_cast<int>(c);
      best_distance = distance;
    }
  }
  return best;
}

// Moves each centre to the mean of its points, summed in point order; an empty one stays put.
void move_centres(const Points& points, const std::vector<int>& labels, Centres& centres) {
  const size_t dimension = points[0].size();
  Centres sums(centres.size(), std::vector<double>(dimension, 0.0));
  std::vector<int> counts(centres.size(), 0);
  for (size_t p = 0; p < points.size(); ++p) {
    const auto c = static_cast<size_t>(labels[p]);
    for (size_t d = 0; d < dimension; ++d) sums[c][d] += points[p][d];
    ++counts[c];
  }
  for (size_t c = 0; c < centres.size(); ++c) {
    if (counts[c] == 0) continue;
    for (size_t d = 0; d < dimension; ++d) centres[c][d] = sums[c][d] / counts[c];
  }
}

// Lloyd iterations from `centres` until no point changes centre (or `max_iterations`); returns
// each point's centre, with `centres` where the points left them.
std::vector<int> lloyd(const Points& points, int max_iterations, Centres& centres) {
  std::vector<int> labels(points.size(), -1);
  for (int iteration = 0; iteration < max_iterations; ++iteration) {
    bool changed = false;
    for (size_t p = 0; p < points.size(); ++p) {
      const int centre = nearest_centre(points[p], centres);
      changed = changed || centre != labels[p];
      labels[p] = centre;
    }
    if (!changed) break;
    move_centres(points, labels, centres);
  }
  return labels;
}

}  // namespace

Memberships canonical_memberships(std::span<const int> labels) {
  std::map<int, int> renumbered;
  Memberships memberships;
  for (int label : labels) {
    const auto [it, added] = renumbered.try_emplace(label, memberships.communities);
    if (added) ++memberships.communities;
    memberships.community_of.push_back(it->second);
  }
  return memberships;
}

void check_points(const Points& points, std::string_view who) {
  for (size_t p = 0; p < points.size(); ++p) {
    if (points[p].size() != points[0].size()) {
      throw std::invalid_argument(fmt::format(
          "{}: point {} has {} coordinates but point 0 has {}; every point needs the same number",
          who, p, points[p].size(), points[0].size()));
    }
    for (size_t d = 0; d < points[p].size(); ++d) {
      if (!std::isfinite(points[p][d])) {
        throw std::invalid_argument(
            fmt::format("{}: point {} coordinate {} is {}; coordinates must be finite", who, p, d,
                        points[p][d]));
      }
    }
  }
}

double squared_distance(std::span<const double> a, std::span<const double> b) {
  double sum = 0;
  for (size_t d = 0; d < a.size(); ++d) sum += (a[d] - b[d]) * (a[d] - b[d]);
  return sum;
}

Memberships kmeans(const Points& points, const KMeansOptions& options) {
  if (points.empty()) {
    throw std::invalid_argument("k-means: no points; there must be at least 1 to group");
  }
  if (options.communities < 1 || static_cast<size_t>(options.communities) > points.size()) {
    throw std::invalid_argument(
        fmt::format("k-means: K = {} communities for {} points; K must be between 1 and {}",
                    options.communities, points.size(), points.size()));
  }
  if (options.max_iterations < 1) {
    throw std::invalid_argument(
        fmt::format("k-means: max_iterations = {}; it must be at least 1", options.max_iterations));
  }
  if (options.restarts < 1) {
    throw std::invalid_argument(
        fmt::format("k-means: restarts = {}; it must be at least 1", options.restarts));
  }
  check_points(points, "k-means");
  // One generator for every seeding, so each restart draws anew and the whole is the seed's.
  std::mt19937_64 rng(options.seed);
  std::vector<int> best;
  double best_inertia = std::numeric_limits<double>::infinity();
  for (int restart = 0; restart < options.restarts; ++restart) {
    Centres centres = seed_centres(points, options.communities, rng);
    const std::vector<int> labels = lloyd(points, options.max_iterations, centres);
    double inertia = 0;
    for (size_t p = 0; p < points.size(); ++p) {
      inertia += squared_distance(points[p], centres[static_cast<size_t>(labels[p])]);
    }
    if (inertia < best_inertia) {
      best_inertia = inertia;
      best = labels;
    }
  }
  return canonical_memberships(best);
}

}  // namespace hetps::protocol
