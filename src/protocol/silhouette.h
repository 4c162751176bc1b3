// The silhouette score [Rousseeuw, 1987] of communities over points, which Petrel's heuristic
// agent maximises over K (spec/petrel.md, "Configuration agent"). For point i, with a(i) its
// mean distance to the other members of its community and b(i) the smallest mean distance to
// the members of another community, s(i) = (b(i) − a(i)) / max(a(i), b(i)); the score is the
// mean of s(i) over all points, in [−1, 1]. Euclidean distance, as scikit-learn's default.
//
// As in scikit-learn: a point alone in its community scores 0, and so does a point with
// a(i) = b(i) = 0 (identical points in different communities). Unlike scikit-learn, which
// refuses it, one community per point is allowed and scores 0. One community has no b(i):
// the score is not defined, and asking for it throws.
#pragma once

#include "protocol/kmeans.h"

namespace hetps::protocol {

// Throws std::invalid_argument when `memberships` has fewer than 2 communities, does not name
// one community per point, names a community outside 0 ... communities − 1 or leaves one
// empty, or for bad points.
double silhouette_score(const Points& points, const Memberships& memberships);

}  // namespace hetps::protocol
