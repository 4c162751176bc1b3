// The warning a run starts with when workers hold less than a batch of training samples.
#include "engine/worker_factory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hetps::engine {
namespace {

using ::testing::HasSubstr;

TEST(ShortSharesWarning, NoneWhenEveryShareHoldsABatch) {
  EXPECT_FALSE(short_shares_warning({{0, 1, 2, 3}, {4, 5, 6, 7}}, 4).has_value());
  EXPECT_FALSE(short_shares_warning({{0, 1, 2, 3, 4}, {5, 6, 7, 8}}, 1).has_value());
}

TEST(ShortSharesWarning, CountsTheShortSharesAndNamesTheSmallest) {
  const std::optional<std::string> warning =
      short_shares_warning({{0, 1, 2, 3}, {4, 5}, {6, 7, 8}, {9}}, 4);
  ASSERT_TRUE(warning.has_value());
  EXPECT_THAT(*warning, HasSubstr("3 of 4 workers hold fewer training samples than a batch "
                                  "(data.batch_size = 4; worker 3 holds 1)"));
}

}  // namespace
}  // namespace hetps::engine
