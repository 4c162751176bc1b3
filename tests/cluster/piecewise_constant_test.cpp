#include "cluster/piecewise_constant.h"

#include <limits>
#include <stdexcept>

#include <gtest/gtest.h>

namespace hetps::cluster {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(ClusterPiecewiseConstant, HoldsInitialValueUntilTheFirstBreakpoint) {
  PiecewiseConstant f(2.0);
  f.set_from(5, 0.5);
  EXPECT_EQ(f.value_at(-1), 2.0);
  EXPECT_EQ(f.value_at(4.999), 2.0);
  EXPECT_EQ(f.value_at(5), 0.5);
  EXPECT_EQ(f.value_at(1e9), 0.5);
  EXPECT_EQ(f.next_change_after(0), 5);
  EXPECT_EQ(f.next_change_after(5), kInf);
}

TEST(ClusterPiecewiseConstant, LaterValueAtTheSameTimeWins) {
  PiecewiseConstant f;
  f.set_from(3, 4.0);
  f.set_from(3, 8.0);
  EXPECT_EQ(f.value_at(3), 8.0);
  EXPECT_THROW(f.set_from(2, 1.0), std::invalid_argument);
}

TEST(ClusterPiecewiseConstant, LargestFromCountsOnlyWhatHoldsFromThatTimeOn) {
  PiecewiseConstant f(4.0);
  f.set_from(0, 0.5);
  f.set_from(10, 2.0);
  f.set_from(20, 1.0);
  EXPECT_EQ(f.largest_from(-1), 4.0);
  EXPECT_EQ(f.largest_from(0), 2.0);
  EXPECT_EQ(f.largest_from(15), 2.0);
  EXPECT_EQ(f.largest_from(20), 1.0);
  EXPECT_EQ(PiecewiseConstant(0.25).largest_from(0), 0.25);
}

TEST(ClusterPiecewiseConstant, MultiplySplitsAndScalesOnlyTheInterval) {
  PiecewiseConstant f;
  f.set_from(5, 0.5);
  f.multiply(2, 7, 3.0);
  EXPECT_EQ(f.value_at(1), 1.0);
  EXPECT_EQ(f.value_at(2), 3.0);
  EXPECT_EQ(f.value_at(5), 1.5);
  EXPECT_EQ(f.value_at(7), 0.5);
  EXPECT_EQ(f.next_change_after(0), 2);
  EXPECT_EQ(f.next_change_after(2), 5);
  EXPECT_EQ(f.next_change_after(5), 7);
  EXPECT_EQ(f.next_change_after(7), kInf);
}

TEST(ClusterPiecewiseConstant, OverlappingMultipliesCompose) {
  PiecewiseConstant f;
  f.multiply(0, 10, 2.0);
  f.multiply(5, kInf, 3.0);
  EXPECT_EQ(f.value_at(4), 2.0);
  EXPECT_EQ(f.value_at(5), 6.0);
  EXPECT_EQ(f.value_at(10), 3.0);
  EXPECT_EQ(f.value_at(1e12), 3.0);
}

}  // namespace
}  // namespace hetps::cluster
