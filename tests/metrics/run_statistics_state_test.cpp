#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "checkpoint/checkpoint_error.h"
#include "metrics/run_statistics.h"
#include "support/through_cbor.h"

namespace hetps::metrics {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// Updates of staleness 0 ... 299 (some beyond the histogram's exact buckets), losses that are
// no short decimals, traffic of every kind, and an evaluation every 50 updates; returns the
// evaluations' records.
std::vector<nlohmann::json> drive_statistics(RunStatistics& stats, int from, int to) {
  std::vector<nlohmann::json> records;
  for (int u = from; u < to; ++u) {
    stats.on_applied(u % 300, 8 + u % 5, 1.0 / (3.0 + u));
    stats.add_bytes_to_server(4000 + u);
    stats.add_bytes_from_server(4000 - u);
    stats.add_bytes_worker_to_worker(u % 7);
    if (u % 50 == 49) {
      records.push_back(to_json(
          stats.evaluation(0.1 * u, u, 0.5 + u / 1000.0, 2.0 / (u + 1), static_cast<uint64_t>(u))));
    }
  }
  return records;
}

TEST(RunStatisticsStateTest, ARestoredCopyContinuesBitForBit) {
  RunStatistics original;
  original.set_target(0.6);
  drive_statistics(original, 0, 230);  // the target reached, an evaluation window half full
  ASSERT_TRUE(original.target_reached());
  RunStatistics restored;
  restored.set_target(0.6);
  restored.restore_state(testing::through_cbor(original.save_state()));
  EXPECT_EQ(restored.save_state(), original.save_state());

  EXPECT_EQ(drive_statistics(restored, 230, 400), drive_statistics(original, 230, 400));
  EXPECT_EQ(to_json(restored.evaluation(41, 400, 0.9, 0.3, 5)),
            to_json(original.evaluation(41, 400, 0.9, 0.3, 5)));
  Summary original_summary;
  Summary restored_summary;
  original.fill(original_summary);
  restored.fill(restored_summary);
  EXPECT_EQ(to_json(restored_summary), to_json(original_summary));
  EXPECT_EQ(restored_summary.staleness_histogram.buckets().size(), 257u);
}

TEST(RunStatisticsStateTest, ATargetNotYetReachedStaysUnreached) {
  RunStatistics original;
  original.set_target(0.99);
  drive_statistics(original, 0, 120);
  RunStatistics restored;
  restored.set_target(0.99);
  restored.restore_state(testing::through_cbor(original.save_state()));
  EXPECT_FALSE(restored.target_reached());
}

TEST(RunStatisticsStateTest, RefusesAHistogramBucketOutOfRangeAndAMissingField) {
  RunStatistics original;
  drive_statistics(original, 0, 60);
  RunStatistics restored;
  const nlohmann::json before = restored.save_state();

  nlohmann::json wrong = original.save_state();
  wrong["staleness_histogram"].push_back({{"staleness", 300}, {"updates", 1}});
  EXPECT_THAT([&] { restored.restore_state(wrong); },
              ThrowsMessage<checkpoint::CheckpointError>(
                  HasSubstr("the run statistics: the staleness histogram: a bucket of staleness "
                            "300 holding 1 updates: expected a staleness from 0 to 256")));
  wrong = original.save_state();
  wrong.erase("window_samples");
  EXPECT_THAT([&] { restored.restore_state(wrong); },
              ThrowsMessage<checkpoint::CheckpointError>(
                  HasSubstr("the run statistics: [json.exception.out_of_range.403] key "
                            "'window_samples' not found")));
  EXPECT_EQ(restored.save_state(), before) << "a refused state changes nothing";
}

}  // namespace
}  // namespace hetps::metrics
