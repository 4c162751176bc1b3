// DBSCAN [Ester et al., KDD 1996], Petrel's `protocol.grouping = "dbscan"` (spec/petrel.md,
// "Communities"): a point with at least `min_points` points within `eps` (itself included, as
// scikit-learn counts) is a core point; core points within `eps` of each other share a
// community, with every point within `eps` of one of them. Points are visited in index order,
// so a border point reachable from two communities joins the one found first.
//
// Noise is not left out: Petrel must place every worker, so each point DBSCAN calls noise
// becomes a community of its own.
#pragma once

#include "protocol/kmeans.h"

namespace hetps::protocol {

// Petrel's defaults (`protocol.dbscan_eps`, `dbscan_min_points`), on normalized worker
// features (worker_features.h), where the median worker is 1.
struct DbscanOptions {
  double eps = 0.3;    // neighbourhood radius (Euclidean), > 0
  int min_points = 2;  // neighbours, itself included, that make a core point; >= 1
};

// Communities numbered canonically (kmeans.h). Throws std::invalid_argument for eps not
// positive and finite, min_points < 1, or bad points.
Memberships dbscan(const Points& points, const DbscanOptions& options);

}  // namespace hetps::protocol
