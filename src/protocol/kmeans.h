// Deterministic k-means, how Petrel forms its communities (spec/petrel.md, "Communities"):
// k-means++ seeding from a given seed, then Lloyd iterations until no point changes community
// (or `max_iterations`). The same points and seed give the same memberships on every standard
// library: the draws use the project's own uniform deviates over std::mt19937_64, whose
// sequence the standard fixes, never std::*_distribution, whose results it does not.
//
// This header also holds what every grouping here (k-means, DBSCAN, the silhouette score)
// shares: points, canonical memberships, their validation and the distance.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace hetps::protocol {

// One feature vector per point (a worker); every point has the same dimension.
using Points = std::vector<std::vector<double>>;

// Which community each point is in, numbered canonically: point 0 is in community 0, and each
// next number goes to the community of the lowest point not yet placed. Two memberships of the
// same points describe the same communities exactly when they are equal.
struct Memberships {
  std::vector<int> community_of;  // by point
  int communities = 0;

  bool operator==(const Memberships&) const = default;
};

// Renumbers arbitrary labels (e.g. centre indices) canonically.
Memberships canonical_memberships(std::span<const int> labels);

// Throws std::invalid_argument, naming `who` and the point, when points differ in dimension or
// a coordinate is not finite.
void check_points(const Points& points, std::string_view who);

double squared_distance(std::span<const double> a, std::span<const double> b);

struct KMeansOptions {
  int communities = 1;  // K, in 1 ... the number of points
  uint64_t seed = 0;
  int max_iterations = 100;  // Lloyd iterations at most, >= 1
  // Seedings tried, each followed by its Lloyd iterations; the memberships with the smallest
  // sum of squared distances to their centres win (the first on a tie). One seeding can stop
  // in a poor local optimum (e.g. pairs split by their smaller difference); scikit-learn also
  // tries 10. >= 1.
  int restarts = 10;
};

// Groups `points` into at most K communities. Points with fewer than K distinct positions get
// one community per distinct position: k-means++ never seeds a centre on a point that already
// has one, so identical workers are never split. A point equally near two centres joins the
// lower-numbered one; a centre left without points keeps its place.
// Throws std::invalid_argument for no points, K outside 1 ... points, max_iterations < 1,
// restarts < 1, or bad points.
Memberships kmeans(const Points& points, const KMeansOptions& options);

}  // namespace hetps::protocol
