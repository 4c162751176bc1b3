#include "protocol/community_choice.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace hetps::protocol {
namespace {

using ::testing::StrEq;
using ::testing::ThrowsMessage;

// Step times 1, 1, 1, 2, 2, 4 normalized by their median (1.5), with equal round trips.
const Points kThreeSpeeds{{1 / 1.5, 1}, {1 / 1.5, 1}, {1 / 1.5, 1},
                          {2 / 1.5, 1}, {2 / 1.5, 1}, {4 / 1.5, 1}};

TEST(CommunityChoiceTest, SeparableSpeedsGetOneCommunityPerSpeed) {
  // K = 3 scores 5/6 (every non-singleton has a = 0, so s = 1; the singleton 0); K = 2 at best
  // 0.625. K = 4 over three distinct workers is K = 3 again, and the tie keeps the smaller.
  const CommunityChoice choice = choose_communities(kThreeSpeeds, {.max_communities = 4});
  EXPECT_EQ(choice.memberships, (Memberships{{0, 0, 0, 1, 1, 2}, 3}));
  ASSERT_TRUE(choice.silhouette.has_value());
  EXPECT_DOUBLE_EQ(*choice.silhouette, 5.0 / 6.0);
}

TEST(CommunityChoiceTest, TheSameSeedGivesTheSameChoice) {
  const CommunityChoiceOptions options{.max_communities = 2, .seed = 3};
  const CommunityChoice first = choose_communities(kThreeSpeeds, options);
  const CommunityChoice second = choose_communities(kThreeSpeeds, options);
  EXPECT_EQ(second.memberships, first.memberships);
  EXPECT_EQ(second.silhouette, first.silhouette);
  EXPECT_EQ(first.memberships.communities, 2) << "K_max caps K";
}

TEST(CommunityChoiceTest, AlikeWorkersFormOneCommunity) {
  const CommunityChoice choice =
      choose_communities({{1.0}, {1.1}, {0.95}, {1.05}}, {.max_communities = 4});
  EXPECT_EQ(choice.memberships, (Memberships{{0, 0, 0, 0}, 1}));
  EXPECT_FALSE(choice.silhouette.has_value());
}

TEST(CommunityChoiceTest, OnlyAVariationBelowTheThresholdMeansAlike) {
  // Step times 1 and 3: mean 2, population standard deviation 1, variation exactly 0.5.
  const Points features{{1}, {3}};
  EXPECT_EQ(choose_communities(features, {.max_communities = 2, .homogeneity_threshold = 0.5})
                .memberships.communities,
            2);
  EXPECT_EQ(choose_communities(features, {.max_communities = 2, .homogeneity_threshold = 0.51})
                .memberships.communities,
            1);
}

TEST(CommunityChoiceTest, IdenticalWorkersAreOneCommunityEvenWithAZeroThreshold) {
  const CommunityChoice choice =
      choose_communities({{1}, {1}, {1}}, {.max_communities = 3, .homogeneity_threshold = 0});
  EXPECT_EQ(choice.memberships, (Memberships{{0, 0, 0}, 1}));
  EXPECT_FALSE(choice.silhouette.has_value());
}

TEST(CommunityChoiceTest, OneWorkerOrKMaxOfOneIsOneCommunity) {
  EXPECT_EQ(choose_communities({{2}}, {.max_communities = 4}).memberships, (Memberships{{0}, 1}));
  EXPECT_EQ(choose_communities(kThreeSpeeds, {.max_communities = 1}).memberships,
            (Memberships{{0, 0, 0, 0, 0, 0}, 1}));
}

TEST(CommunityChoiceTest, RefusesBadOptions) {
  EXPECT_THAT([] { choose_communities(kThreeSpeeds, {.max_communities = 0}); },
              ThrowsMessage<std::invalid_argument>(
                  StrEq("community choice: K_max = 0; it must be at least 1")));
  EXPECT_THAT(
      [] {
        choose_communities(kThreeSpeeds, {.max_communities = 2, .homogeneity_threshold = -0.1});
      },
      ThrowsMessage<std::invalid_argument>(
          StrEq("community choice: homogeneity_threshold = -0.1; it must be at least 0")));
  EXPECT_THAT(
      [] {
        choose_communities(kThreeSpeeds, {.max_communities = 2, .homogeneity_threshold = NAN});
      },
      ThrowsMessage<std::invalid_argument>(
          StrEq("community choice: homogeneity_threshold = nan; it must be at least 0")));
}

TEST(CommunityChoiceTest, RefusesFeaturesWithoutAPositiveStepTime) {
  const CommunityChoiceOptions options{.max_communities = 2};
  EXPECT_THAT([&] { choose_communities({}, options); },
              ThrowsMessage<std::invalid_argument>(
                  StrEq("community choice: no workers to group; there must be at least 1")));
  EXPECT_THAT(
      [&] {
        choose_communities({{}, {}}, options);
      },
      ThrowsMessage<std::invalid_argument>(
          StrEq("community choice: the feature vectors are empty; the first must be the step "
                "time")));
  EXPECT_THAT(
      [&] {
        choose_communities({{1}, {0}}, options);
      },
      ThrowsMessage<std::invalid_argument>(
          StrEq("community choice: worker 1's step time is 0; it must be positive")));
  EXPECT_THAT(
      [&] {
        choose_communities({{1, 1}, {2}}, options);
      },
      ThrowsMessage<std::invalid_argument>(
          StrEq("community choice: point 1 has 1 coordinates but point 0 has 2; every "
                "point needs the same number")));
}

}  // namespace
}  // namespace hetps::protocol
