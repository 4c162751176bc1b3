#include "protocol/kmeans.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <stdexcept>

namespace hetps::protocol {
namespace {

using ::testing::StrEq;
using ::testing::ThrowsMessage;

// Twelve points in three loose 2-D blobs, interleaved, with a deterministic wobble.
Points blobs() {
  Points points;
  for (int i = 0; i < 12; ++i) {
    const double centre = 5.0 * (i % 3);
    points.push_back({centre + 0.8 * std::sin(i * 1.3), centre + 0.8 * std::cos(i * 2.1)});
  }
  return points;
}

void expect_valid(const Memberships& memberships, size_t points) {
  EXPECT_EQ(memberships.community_of.size(), points);
  EXPECT_EQ(canonical_memberships(memberships.community_of), memberships)
      << "numbered canonically, every community non-empty";
}

TEST(KMeansTest, CanonicalNumberingFollowsTheSmallestMember) {
  const std::vector<int> labels{5, 5, 2, 7, 2};
  EXPECT_EQ(canonical_memberships(labels), (Memberships{{0, 0, 1, 2, 1}, 3}));
}

TEST(KMeansTest, SeparableSpeedProfilesFormOneCommunityPerSpeed) {
  // Step times 1, 1, 1, 2, 2, 4 normalized by their median, 1.5.
  const Points points{{1 / 1.5}, {1 / 1.5}, {1 / 1.5}, {2 / 1.5}, {2 / 1.5}, {4 / 1.5}};
  for (uint64_t seed = 0; seed < 20; ++seed) {
    EXPECT_EQ(kmeans(points, {.communities = 3, .seed = seed}),
              (Memberships{{0, 0, 0, 1, 1, 2}, 3}))
        << "seed " << seed;
  }
}

TEST(KMeansTest, LloydIterationsMoveCentresOffTheirSeeds) {
  // Whichever two points seed the centres (even 0 and 1), the iterations end at the two halves.
  const Points points{{0}, {1}, {2}, {10}, {11}, {12}};
  for (uint64_t seed = 0; seed < 20; ++seed) {
    EXPECT_EQ(kmeans(points, {.communities = 2, .seed = seed}),
              (Memberships{{0, 0, 0, 1, 1, 1}, 2}))
        << "seed " << seed;
  }
}

TEST(KMeansTest, ThreeBlobsFormThreeCommunities) {
  EXPECT_EQ(kmeans(blobs(), {.communities = 3, .seed = 7}),
            (Memberships{{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2}, 3}));
}

TEST(KMeansTest, TheSameSeedGivesTheSameMemberships) {
  // Four communities over three blobs: which blob the extra centre splits depends on the seed.
  std::set<std::vector<int>> seen;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    // One seeding each: with restarts the best of them may not depend on the seed.
    const KMeansOptions options{.communities = 4, .seed = seed, .restarts = 1};
    const Memberships first = kmeans(blobs(), options);
    EXPECT_EQ(kmeans(blobs(), options), first) << "seed " << seed;
    expect_valid(first, 12);
    EXPECT_EQ(first.communities, 4) << "seed " << seed;
    seen.insert(first.community_of);
  }
  EXPECT_GT(seen.size(), 1u) << "the seed is used";
}

// Two pairs whose members differ a little in one feature and much in the other: a seeding on
// both members of one pair ends in the split by the smaller difference; restarts keep the split
// with the smaller sum of squared distances.
TEST(KMeansTest, RestartsKeepTheBetterOfTwoLocalOptima) {
  const Points points{{0.4, 1.33}, {0.4, 0.67}, {1.6, 1.33}, {1.6, 0.67}};
  const Memberships by_first_feature{{0, 0, 1, 1}, 2};
  std::set<std::vector<int>> single_seedings;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    EXPECT_EQ(kmeans(points, {.communities = 2, .seed = seed}), by_first_feature)
        << "seed " << seed;
    single_seedings.insert(
        kmeans(points, {.communities = 2, .seed = seed, .restarts = 1}).community_of);
  }
  EXPECT_TRUE(single_seedings.contains({0, 1, 0, 1})) << "one seeding alone can stop there";
}

TEST(KMeansTest, OneCommunityHoldsEveryPoint) {
  EXPECT_EQ(kmeans({{3, 1}, {0, 0}, {9, 9}}, {.communities = 1}), (Memberships{{0, 0, 0}, 1}));
}

TEST(KMeansTest, AsManyCommunitiesAsDistinctPointsPutsEachApart) {
  EXPECT_EQ(kmeans({{3}, {0}, {9}}, {.communities = 3}), (Memberships{{0, 1, 2}, 3}));
}

TEST(KMeansTest, IdenticalPointsAreNeverSplit) {
  // K = 3 over two distinct positions: two communities, not three.
  for (uint64_t seed = 0; seed < 10; ++seed) {
    EXPECT_EQ(kmeans({{0}, {0}, {1}}, {.communities = 3, .seed = seed}),
              (Memberships{{0, 0, 1}, 2}));
  }
  EXPECT_EQ(kmeans({{2, 2}, {2, 2}}, {.communities = 2}), (Memberships{{0, 0}, 1}));
}

TEST(KMeansTest, RefusesKOutsideOneToThePointsAndNoPoints) {
  const Points points{{0}, {1}};
  EXPECT_THAT([&] { kmeans(points, {.communities = 0}); },
              ThrowsMessage<std::invalid_argument>(
                  StrEq("k-means: K = 0 communities for 2 points; K must be between 1 and 2")));
  EXPECT_THAT([&] { kmeans(points, {.communities = 3}); },
              ThrowsMessage<std::invalid_argument>(
                  StrEq("k-means: K = 3 communities for 2 points; K must be between 1 and 2")));
  EXPECT_THAT([&] { kmeans({}, {.communities = 1}); },
              ThrowsMessage<std::invalid_argument>(
                  StrEq("k-means: no points; there must be at least 1 to group")));
}

TEST(KMeansTest, RefusesFewerThanOneSeeding) {
  EXPECT_THAT(
      [] {
        kmeans({{0.0}, {1.0}}, {.communities = 1, .restarts = 0});
      },
      ::testing::ThrowsMessage<std::invalid_argument>(
          ::testing::HasSubstr("restarts = 0; it must be at least 1")));
}

TEST(KMeansTest, RefusesAnIterationCapBelowOne) {
  EXPECT_THAT([&] { kmeans({{0}}, {.communities = 1, .max_iterations = 0}); },
              ThrowsMessage<std::invalid_argument>(
                  StrEq("k-means: max_iterations = 0; it must be at least 1")));
}

TEST(KMeansTest, RefusesRaggedPoints) {
  EXPECT_THAT(
      [&] {
        kmeans({{0, 1}, {2, 3}, {4}}, {.communities = 2});
      },
      ThrowsMessage<std::invalid_argument>(
          StrEq("k-means: point 2 has 1 coordinates but point 0 has 2; every point needs "
                "the same number")));
}

TEST(KMeansTest, RefusesCoordinatesThatAreNotFinite) {
  EXPECT_THAT(
      [&] {
        kmeans({{0, 1}, {2, NAN}}, {.communities = 2});
      },
      ThrowsMessage<std::invalid_argument>(
          StrEq("k-means: point 1 coordinate 1 is nan; coordinates must be finite")));
}

}  // namespace
}  // namespace hetps::protocol
