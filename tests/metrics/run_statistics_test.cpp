#include <gtest/gtest.h>

#include "metrics/run_statistics.h"

namespace hetps::metrics {
namespace {

TEST(RunStatisticsTest, TrainingLossIsTheSampleWeightedMeanSinceTheLastEvaluation) {
  RunStatistics stats;
  stats.on_applied(0, 10, 2.0);
  stats.on_applied(2, 30, 1.0);
  EvalRecord first = stats.evaluation(1.0, 2, 0.5, 1.2, 7);
  EXPECT_DOUBLE_EQ(first.train_loss, 1.25);
  EXPECT_EQ(first.samples, 40);
  EXPECT_DOUBLE_EQ(first.mean_staleness, 1.0);
  EXPECT_EQ(first.model_hash, 7u);
  // Nothing applied since: the previous mean stands.
  EXPECT_DOUBLE_EQ(stats.evaluation(2.0, 2, 0.5, 1.2, 7).train_loss, 1.25);
  stats.on_applied(4, 10, 0.5);
  EXPECT_DOUBLE_EQ(stats.evaluation(3.0, 3, 0.6, 1.1, 8).train_loss, 0.5);
}

// Found by a probe: a Petrel round merged at its leader counted once, where the same round
// aggregated at the server counted once per worker.
TEST(RunStatisticsTest, AMergedUpdateCountsItsStalenessOncePerContributor) {
  RunStatistics stats;
  stats.on_applied(2, 30, 1.0, 3);
  stats.on_applied(6, 10, 1.0);
  const EvalRecord record = stats.evaluation(1.0, 2, 0.5, 1.2, 7);
  EXPECT_DOUBLE_EQ(record.mean_staleness, 3.0);  // (3 * 2 + 6) / 4
  EXPECT_EQ(record.samples, 40);
  Summary summary;
  stats.fill(summary);
  EXPECT_EQ(summary.staleness_histogram.total_updates(), 4);
  EXPECT_EQ(summary.max_staleness, 6);
}

TEST(RunStatisticsTest, TimeToTargetIsTheFirstEvaluationAtOrAboveIt) {
  RunStatistics stats;
  stats.set_target(0.8);
  stats.evaluation(1.0, 1, 0.7, 1, 0);
  EXPECT_FALSE(stats.target_reached());
  stats.evaluation(2.0, 2, 0.8, 1, 0);
  stats.evaluation(3.0, 3, 0.9, 1, 0);
  stats.evaluation(4.0, 4, 0.85, 1, 0);
  EXPECT_TRUE(stats.target_reached());
  Summary summary;
  stats.fill(summary);
  ASSERT_TRUE(summary.time_to_target.has_value());
  EXPECT_DOUBLE_EQ(*summary.time_to_target, 2.0);
  EXPECT_DOUBLE_EQ(summary.final_accuracy, 0.85);
  EXPECT_DOUBLE_EQ(summary.best_accuracy, 0.9);
  EXPECT_DOUBLE_EQ(summary.total_time, 4.0);
  EXPECT_EQ(summary.updates, 4);
}

TEST(RunStatisticsTest, TrafficAndStalenessTotals) {
  RunStatistics stats;
  stats.add_bytes_to_server(100);
  stats.add_bytes_from_server(300);
  stats.add_bytes_worker_to_worker(5);
  stats.on_applied(3, 1, 0);
  stats.on_applied(1, 1, 0);
  Summary summary;
  stats.fill(summary);
  EXPECT_EQ(summary.bytes_to_server, 100);
  EXPECT_EQ(summary.bytes_from_server, 300);
  EXPECT_EQ(summary.bytes_worker_to_worker, 5);
  EXPECT_EQ(summary.max_staleness, 3);
  EXPECT_DOUBLE_EQ(summary.mean_staleness, 2.0);
  EXPECT_FALSE(summary.time_to_target.has_value());
}

}  // namespace
}  // namespace hetps::metrics
