#include <cmath>

#include <gtest/gtest.h>

#include "params/layout.h"

namespace hetps::params {
namespace {

TEST(ParamLayoutTest, LaysTensorsEndToEnd) {
  ParamLayout layout;
  layout.add("w", {3, 4});
  layout.add("b", {3});
  EXPECT_EQ(layout.size(), 15u);
  EXPECT_EQ(layout.bytes(), 60u);
  EXPECT_EQ(layout.tensors()[1].offset, 12u);
  EXPECT_EQ(layout.tensors()[1].count, 3u);
  EXPECT_THROW(layout.add("bad", {0, 2}), std::invalid_argument);
}

TEST(ParamLayoutTest, ShardsCoverTheBufferInNearEqualRanges) {
  ParamLayout layout;
  layout.add("w", {10});
  auto ranges = layout.shard_ranges(3);
  ASSERT_EQ(ranges.size(), 3u);
  EXPECT_EQ(ranges[0], (KeyRange{0, 4}));
  EXPECT_EQ(ranges[1], (KeyRange{4, 7}));
  EXPECT_EQ(ranges[2], (KeyRange{7, 10}));
  EXPECT_THROW(layout.shard_ranges(0), std::invalid_argument);
}

TEST(HashParametersTest, SeesEveryBit) {
  std::vector<float> a = {1.0f, 2.0f};
  std::vector<float> b = a;
  EXPECT_EQ(hash_parameters(a), hash_parameters(b));
  b[1] = std::nextafter(b[1], 3.0f);
  EXPECT_NE(hash_parameters(a), hash_parameters(b));
}

}  // namespace
}  // namespace hetps::params
