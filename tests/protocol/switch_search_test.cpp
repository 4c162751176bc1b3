#include "protocol/switch_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace hetps::protocol {
namespace {

// A scripted job: BSP reaches 0.88; switching earlier than `threshold` costs a point.
struct Oracle {
  double threshold;
  std::vector<double> asked{};
  double operator()(double x) {
    asked.push_back(x);
    return x >= threshold ? 0.88 - 0.001 : 0.87;
  }
};

SwitchSearchResult search(Oracle& oracle, SwitchSearchOptions options = {}) {
  return search_switch_point([&](double x) { return oracle(x); }, options);
}

TEST(SwitchSearchTest, ReturnsTheSmallestFractionWithinTolerance) {
  Oracle oracle{0.2};
  const SwitchSearchResult result = search(oracle, {.tolerance = 0.005, .refine = false});
  EXPECT_EQ(oracle.asked, (std::vector<double>{1.0, 0.5, 0.25, 0.125}));
  EXPECT_DOUBLE_EQ(result.chosen, 0.25);
  EXPECT_DOUBLE_EQ(result.bsp_accuracy, 0.879);
  ASSERT_EQ(result.candidates.size(), 3u);
  EXPECT_DOUBLE_EQ(result.candidates[2].accuracy, 0.87);
}

TEST(SwitchSearchTest, RefinesBetweenTheLastTwo) {
  Oracle oracle{0.15};
  const SwitchSearchResult result = search(oracle);
  EXPECT_EQ(oracle.asked, (std::vector<double>{1.0, 0.5, 0.25, 0.125, 0.1875}));
  EXPECT_DOUBLE_EQ(result.chosen, 0.1875);
}

TEST(SwitchSearchTest, StopsAtTheSmallestStepWhenEveryStepHolds) {
  Oracle oracle{0.0};
  const SwitchSearchResult result = search(oracle);
  EXPECT_DOUBLE_EQ(result.chosen, 0.0625);
  EXPECT_EQ(result.candidates.size(), 4u);
}

TEST(SwitchSearchTest, HalvesFromHalfToTheSmallestAndNeverForeverFromZero) {
  EXPECT_EQ(halvings({}), (std::vector<double>{0.5, 0.25, 0.125, 0.0625}));
  EXPECT_EQ(halvings({.smallest = 0.3}), (std::vector<double>{0.5}));
  Oracle oracle{0.0};
  EXPECT_THROW(search(oracle, {.smallest = 0}), std::invalid_argument);
  EXPECT_TRUE(oracle.asked.empty()) << "refused before any run";
}

TEST(SwitchSearchTest, StaysInBspWhenNoFractionHolds) {
  Oracle oracle{0.9};
  const SwitchSearchResult result = search(oracle);
  EXPECT_EQ(oracle.asked, (std::vector<double>{1.0, 0.5, 0.75}));
  EXPECT_DOUBLE_EQ(result.chosen, 1.0);
}

// No candidate is larger, and a job where 50% fails tries it.
TEST(SwitchSearchTest, TheLargestCandidateIsTheLargestTried) {
  for (const bool refine : {true, false}) {
    const SwitchSearchOptions options{.refine = refine};
    for (const double threshold : {0.0, 0.15, 0.3, 0.6, 0.9}) {
      Oracle oracle{threshold};
      search(oracle, options);
      const double largest = *std::max_element(oracle.asked.begin() + 1, oracle.asked.end());
      EXPECT_LE(largest, largest_candidate(options)) << threshold;
      if (threshold > 0.5) {
        EXPECT_EQ(largest, largest_candidate(options)) << threshold;
      }
    }
  }
}

TEST(SwitchSearchTest, TheToleranceDecides) {
  Oracle oracle{0.2};
  EXPECT_DOUBLE_EQ(search(oracle, {.tolerance = 0.02, .refine = false}).chosen, 0.0625);
}

}  // namespace
}  // namespace hetps::protocol
