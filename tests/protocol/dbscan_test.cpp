#include "protocol/dbscan.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace hetps::protocol {
namespace {

using ::testing::StrEq;
using ::testing::ThrowsMessage;

TEST(DbscanTest, DenseRunsAreCommunitiesAndNoiseStandsAlone) {
  // With eps 0.15 and 3 points: 0.1 and 5.1 are core points; 0, 0.2, 5 and 5.2 border on them;
  // 9 and 20 are noise. Point 0 (9) is seen first, and point 1 (0) is noise until 0.1's
  // community claims it.
  const Points points{{9}, {0}, {5}, {0.1}, {5.1}, {0.2}, {5.2}, {20}};
  EXPECT_EQ(dbscan(points, {.eps = 0.15, .min_points = 3}),
            (Memberships{{0, 1, 2, 1, 2, 1, 2, 3}, 4}));
}

TEST(DbscanTest, ABorderPointBetweenTwoCommunitiesJoinsTheOneFoundFirst) {
  // 13 lies within 10 of 3 and of 23 but has only 3 neighbours: a border point of both.
  const Points points{{0}, {1}, {2}, {3}, {13}, {23}, {24}, {25}, {26}};
  EXPECT_EQ(dbscan(points, {.eps = 10, .min_points = 4}),
            (Memberships{{0, 0, 0, 0, 0, 1, 1, 1, 1}, 2}));
}

TEST(DbscanTest, WithOnePointEveryPointIsCoreAndChainsAreCommunities) {
  // Euclidean in 2-D: (0, 0) – (3, 4) is 5 apart, within eps; (20, 0) is far from both.
  EXPECT_EQ(dbscan({{0, 0}, {20, 0}, {3, 4}}, {.eps = 5, .min_points = 1}),
            (Memberships{{0, 1, 0}, 2}));
}

TEST(DbscanTest, NoPointsMakeNoCommunities) { EXPECT_EQ(dbscan({}, {}), (Memberships{{}, 0})); }

TEST(DbscanTest, RefusesAnEpsThatIsNotAPositiveFiniteDistance) {
  for (const double eps : {0.0, -1.0, std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN()}) {
    EXPECT_THAT([&] { dbscan({{0}}, {.eps = eps}); },
                ThrowsMessage<std::invalid_argument>(StrEq(
                    fmt::format("dbscan: eps = {}; it must be a positive finite distance", eps))));
  }
}

TEST(DbscanTest, RefusesMinPointsBelowOne) {
  EXPECT_THAT(
      [&] { dbscan({{0}}, {.min_points = 0}); },
      ThrowsMessage<std::invalid_argument>(StrEq("dbscan: min_points = 0; it must be at least 1")));
}

TEST(DbscanTest, RefusesRaggedPoints) {
  EXPECT_THAT(
      [&] {
        dbscan({{0}, {1, 2}}, {});
      },
      ThrowsMessage<std::invalid_argument>(
          StrEq("dbscan: point 1 has 2 coordinates but point 0 has 1; every point needs "
                "the same number")));
}

}  // namespace
}  // namespace hetps::protocol
