#include "protocol/silhouette.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

namespace hetps::protocol {
namespace {

using ::testing::StrEq;
using ::testing::ThrowsMessage;

TEST(SilhouetteTest, TwoPairsOnALine) {
  // {0, 2} and {6, 10}: s = (8−2)/8, (6−2)/6, (5−4)/5, (9−4)/9; their mean is 391/720.
  EXPECT_DOUBLE_EQ(silhouette_score({{0}, {2}, {6}, {10}}, {{0, 0, 1, 1}, 2}), 391.0 / 720.0);
}

TEST(SilhouetteTest, DistancesAreEuclidean) {
  // A 3 × 4 rectangle split along its long side: a = 3, b = (4 + 5) / 2 for every point.
  EXPECT_DOUBLE_EQ(silhouette_score({{0, 0}, {0, 3}, {4, 0}, {4, 3}}, {{0, 0, 1, 1}, 2}),
                   1.0 / 3.0);
}

TEST(SilhouetteTest, ASingletonScoresZero) {
  // {0, 2} score (10−2)/10 and (8−2)/8; 10 alone scores 0: (0.8 + 0.75 + 0) / 3.
  EXPECT_DOUBLE_EQ(silhouette_score({{0}, {2}, {10}}, {{0, 0, 1}, 2}), 31.0 / 60.0);
}

TEST(SilhouetteTest, OneCommunityPerPointScoresZero) {
  EXPECT_EQ(silhouette_score({{0}, {1}, {5}}, {{0, 1, 2}, 3}), 0.0);
}

TEST(SilhouetteTest, IdenticalPointsInDifferentCommunitiesScoreZeroNotNan) {
  EXPECT_EQ(silhouette_score({{1}, {1}, {1}, {1}}, {{0, 0, 1, 1}, 2}), 0.0);
}

TEST(SilhouetteTest, IsNotDefinedForOneCommunity) {
  EXPECT_THAT(
      [] {
        silhouette_score({{0}, {1}}, {{0, 0}, 1});
      },
      ThrowsMessage<std::invalid_argument>(
          StrEq("silhouette: communities = 1; the score is defined only for 2 or more")));
}

TEST(SilhouetteTest, RefusesMembershipsThatDoNotFitThePoints) {
  EXPECT_THAT(
      [] {
        silhouette_score({{0}, {1}, {2}}, {{0, 1}, 2});
      },
      ThrowsMessage<std::invalid_argument>(
          StrEq("silhouette: memberships name 2 points but there are 3; one per point")));
  EXPECT_THAT(
      [] {
        silhouette_score({{0}, {1}, {2}}, {{0, 1, 2}, 2});
      },
      ThrowsMessage<std::invalid_argument>(
          StrEq("silhouette: point 2 is in community 2; communities are 0 ... 1")));
  EXPECT_THAT(
      [] {
        silhouette_score({{0}, {1}, {2}}, {{0, 2, 0}, 3});
      },
      ThrowsMessage<std::invalid_argument>(StrEq("silhouette: community 1 of 3 has no points")));
}

TEST(SilhouetteTest, RefusesRaggedPoints) {
  EXPECT_THAT(
      [] {
        silhouette_score({{0, 0}, {1}}, {{0, 1}, 2});
      },
      ThrowsMessage<std::invalid_argument>(
          StrEq("silhouette: point 1 has 1 coordinates but point 0 has 2; every point "
                "needs the same number")));
}

}  // namespace
}  // namespace hetps::protocol
