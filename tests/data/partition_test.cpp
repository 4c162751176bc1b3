#include "data/partition.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace hetps::data {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using Shards = std::vector<std::vector<int64_t>>;

std::vector<int64_t> balanced_labels(int64_t samples, int classes) {
  std::vector<int64_t> labels;
  for (int64_t i = 0; i < samples; ++i) labels.push_back(i % classes);
  return labels;
}

void expect_exact_cover(const Shards& shards, size_t samples) {
  std::vector<int> seen(samples, 0);
  for (const auto& shard : shards) {
    EXPECT_FALSE(shard.empty());
    EXPECT_TRUE(std::is_sorted(shard.begin(), shard.end()));
    for (int64_t i : shard) ++seen[static_cast<size_t>(i)];
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), static_cast<int64_t>(samples));
}

std::set<int64_t> classes_of(const std::vector<int64_t>& shard,
                             const std::vector<int64_t>& labels) {
  std::set<int64_t> classes;
  for (int64_t i : shard) classes.insert(labels[i]);
  return classes;
}

std::string error_of(const std::vector<int64_t>& labels, int workers, const std::string& mode,
                     int classes_per_worker) {
  try {
    partition_samples(labels, 10, workers, mode, classes_per_worker, 1);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no std::invalid_argument";
}

TEST(PartitionIid, CoversEverySampleOnceWithSizesWithinOne) {
  const auto labels = balanced_labels(103, 10);
  const Shards shards = partition_samples(labels, 10, 10, "iid", 2, 5);
  ASSERT_EQ(shards.size(), 10u);
  expect_exact_cover(shards, labels.size());
  for (size_t w = 0; w < shards.size(); ++w) EXPECT_EQ(shards[w].size(), w < 3 ? 11u : 10u);
}

TEST(PartitionIid, IsSeeded) {
  const auto labels = balanced_labels(100, 10);
  EXPECT_EQ(partition_samples(labels, 10, 4, "iid", 2, 5),
            partition_samples(labels, 10, 4, "iid", 2, 5));
  EXPECT_NE(partition_samples(labels, 10, 4, "iid", 2, 5),
            partition_samples(labels, 10, 4, "iid", 2, 6));
}

TEST(PartitionNonIid, EachOfFiveWorkersHoldsTwoWholeClasses) {
  const auto labels = balanced_labels(1000, 10);
  const Shards shards = partition_samples(labels, 10, 5, "noniid", 2, 3);
  expect_exact_cover(shards, labels.size());
  for (const auto& shard : shards) {
    EXPECT_EQ(classes_of(shard, labels).size(), 2u);
    EXPECT_EQ(shard.size(), 200u);  // two whole classes of 100
  }
}

TEST(PartitionNonIid, ClassesHeldByTwoWorkersAreSplitEvenly) {
  const auto labels = balanced_labels(1010, 10);  // 101 samples per class
  const Shards shards = partition_samples(labels, 10, 8, "noniid", 2, 3);
  expect_exact_cover(shards, labels.size());
  std::vector<std::vector<int64_t>> per_class_counts(10);
  for (const auto& shard : shards) {
    const auto classes = classes_of(shard, labels);
    EXPECT_EQ(classes.size(), 2u);
    for (int64_t c : classes) {
      per_class_counts[c].push_back(
          std::count_if(shard.begin(), shard.end(), [&](int64_t i) { return labels[i] == c; }));
    }
  }
  // 16 class slots over 10 classes: six classes split in two (51 + 50), four held whole.
  int split_classes = 0;
  for (const auto& counts : per_class_counts) {
    ASSERT_FALSE(counts.empty());
    if (counts.size() == 2) {
      ++split_classes;
      EXPECT_EQ(std::max(counts[0], counts[1]), 51);
      EXPECT_EQ(std::min(counts[0], counts[1]), 50);
    } else {
      EXPECT_EQ(counts, std::vector<int64_t>{101});
    }
  }
  EXPECT_EQ(split_classes, 6);
}

TEST(PartitionNonIid, TooFewWorkersHoldMoreClassesSoNoClassIsDropped) {
  const auto labels = balanced_labels(300, 10);
  const Shards shards = partition_samples(labels, 10, 3, "noniid", 2, 3);
  expect_exact_cover(shards, labels.size());
  for (const auto& shard : shards) EXPECT_EQ(classes_of(shard, labels).size(), 4u);  // ceil(10/3)
}

// The user is told of the raise, which the run's config.toml does not show.
TEST(PartitionNonIid, RaisingTheClassesPerWorkerIsWarnedOf) {
  EXPECT_EQ(raised_classes_warning(10, 4, "noniid", 1),
            "data.classes_per_worker = 1 with 4 workers would leave 6 of the 10 classes to no "
            "worker: each worker holds 3 classes instead (ceil(10 / 4)), so that every class is "
            "trained on");
  EXPECT_EQ(raised_classes_warning(10, 4, "noniid", 3), std::nullopt);
  EXPECT_EQ(raised_classes_warning(10, 5, "noniid", 2), std::nullopt);
  EXPECT_EQ(raised_classes_warning(10, 4, "iid", 1), std::nullopt);
}

TEST(PartitionNonIid, IsSeeded) {
  const auto labels = balanced_labels(200, 10);
  EXPECT_EQ(partition_samples(labels, 10, 5, "noniid", 2, 8),
            partition_samples(labels, 10, 5, "noniid", 2, 8));
  EXPECT_NE(partition_samples(labels, 10, 5, "noniid", 2, 8),
            partition_samples(labels, 10, 5, "noniid", 2, 9));
}

TEST(PartitionNonIid, AClassWithFewerSamplesThanHoldersLeavesNoWorkerEmpty) {
  // Two workers hold class 1, which has a single sample.
  const std::vector<int64_t> labels = {0, 0, 0, 1};
  const Shards shards = partition_samples(labels, 2, 4, "noniid", 1, 1);
  expect_exact_cover(shards, labels.size());
  for (const auto& shard : shards) EXPECT_EQ(shard.size(), 1u);
}

TEST(Partition, RejectsAnUnknownModeNamingTheSetting) {
  EXPECT_THAT(error_of(balanced_labels(10, 10), 2, "dirichlet", 2),
              AllOf(HasSubstr("data.partition = 'dirichlet'"), HasSubstr("allowed: iid, noniid")));
}

TEST(Partition, RejectsClassesPerWorkerOutsideTheClasses) {
  EXPECT_THAT(error_of(balanced_labels(10, 10), 2, "noniid", 0),
              HasSubstr("data.classes_per_worker = 0"));
  EXPECT_THAT(error_of(balanced_labels(10, 10), 2, "noniid", 11),
              AllOf(HasSubstr("data.classes_per_worker = 11"), HasSubstr("allowed: 1..10")));
}

TEST(Partition, RejectsMoreWorkersThanSamplesOrNone) {
  EXPECT_THAT(error_of(balanced_labels(3, 10), 4, "iid", 2),
              HasSubstr("cluster.workers = 4 exceeds the 3 training samples"));
  EXPECT_THAT(error_of(balanced_labels(3, 10), 0, "iid", 2), HasSubstr("cluster.workers = 0"));
}

TEST(Partition, RejectsALabelOutsideTheClasses) {
  EXPECT_THAT(error_of({1, 2, 10}, 1, "iid", 2), HasSubstr("label 10 of sample 2 is outside 0..9"));
}

}  // namespace
}  // namespace hetps::data
