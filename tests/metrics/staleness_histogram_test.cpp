#include <gtest/gtest.h>

#include "metrics/records.h"
#include "metrics/run_statistics.h"

namespace hetps::metrics {
namespace {

constexpr int64_t kOverflow = StalenessHistogram::kOverflowStaleness;

TEST(StalenessHistogramTest, CountsExactlyBelowTheOverflowAndSharesOneBucketAbove) {
  StalenessHistogram histogram;
  histogram.add(0, 5);
  histogram.add(3);
  histogram.add(3);
  histogram.add(kOverflow - 1);
  histogram.add(kOverflow);
  histogram.add(kOverflow + 1000, 2);
  const std::vector<StalenessHistogram::Bucket> buckets = histogram.buckets();
  ASSERT_EQ(buckets.size(), 4u);
  EXPECT_EQ(buckets[0].staleness, 0);
  EXPECT_EQ(buckets[0].updates, 5);
  EXPECT_EQ(buckets[1].staleness, 3);
  EXPECT_EQ(buckets[1].updates, 2);
  EXPECT_EQ(buckets[2].staleness, kOverflow - 1);
  EXPECT_FALSE(buckets[2].or_more);
  EXPECT_EQ(buckets[3].staleness, kOverflow);
  EXPECT_TRUE(buckets[3].or_more);
  EXPECT_EQ(buckets[3].updates, 3);
  EXPECT_EQ(histogram.total_updates(), 11);
}

TEST(StalenessHistogramTest, RefusesANegativeStaleness) {
  StalenessHistogram histogram;
  EXPECT_THROW(histogram.add(-1), std::invalid_argument);
  EXPECT_THROW(histogram.add(0, -1), std::invalid_argument);
}

TEST(StalenessHistogramTest, JsonListsTheNonEmptyBucketsAndMarksTheSharedOne) {
  StalenessHistogram histogram;
  histogram.add(2, 7);
  histogram.add(kOverflow + 5);
  EXPECT_EQ(to_json(histogram), nlohmann::json::parse(R"([{"staleness": 2, "updates": 7},
                                      {"staleness": 256, "updates": 1, "or_more": true}])"));
  EXPECT_EQ(to_json(StalenessHistogram{}), nlohmann::json::array());
}

TEST(StalenessHistogramTest, TheSummaryCarriesEveryAppliedUpdate) {
  RunStatistics stats;
  stats.on_applied(0, 4, 1.0);
  stats.on_applied(1, 4, 1.0);
  stats.on_applied(1, 4, 1.0);
  Summary summary;
  stats.fill(summary);
  EXPECT_EQ(to_json(summary).at("staleness_histogram"),
            nlohmann::json::parse(R"([{"staleness": 0, "updates": 1},
                                      {"staleness": 1, "updates": 2}])"));
}

}  // namespace
}  // namespace hetps::metrics
