#include "data/share_cut.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>

#include "data/partition.h"

namespace hetps::data {
namespace {

using ::testing::ElementsAre;
using ::testing::StrEq;
using ::testing::ThrowsMessage;
using CutShards = std::vector<std::vector<int64_t>>;

// The samples `after` holds that `before` did not: those moved in.
int64_t samples_moved_in(const std::vector<int64_t>& before, const std::vector<int64_t>& after) {
  std::vector<int64_t> arrived;
  std::ranges::set_difference(after, before, std::back_inserter(arrived));
  return static_cast<int64_t>(arrived.size());
}

TEST(ShareCutTest, SizesRoundByLargestRemainder) {
  // Quotas 6.2, 2.7, 1.1: floors 6, 2, 1 leave one sample, which goes to the largest
  // fractional part, 0.7.
  EXPECT_THAT(share_sizes(std::vector{0.62, 0.27, 0.11}, 10), ElementsAre(6, 3, 1));
  // Quotas 3.33 each: the left-over sample goes to the lower worker.
  EXPECT_THAT(share_sizes(std::vector{1.0 / 3, 1.0 / 3, 1.0 / 3}, 10), ElementsAre(4, 3, 3));
}

TEST(ShareCutTest, AWorkerWithANegligibleShareStillGetsASample) {
  // Quotas 9, 1, 0: the empty worker takes one from the largest.
  EXPECT_THAT(share_sizes(std::vector{0.9, 0.1, 0.0}, 10), ElementsAre(8, 1, 1));
}

TEST(ShareCutTest, SizesAlwaysAddUpToTheSamples) {
  std::mt19937_64 random(3);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> shares(1 + random() % 16);
    for (double& share : shares) share = std::uniform_real_distribution<double>()(random);
    const double sum = std::accumulate(shares.begin(), shares.end(), 0.0);
    for (double& share : shares) share /= sum;
    const auto total = static_cast<int64_t>(shares.size() + random() % 1000);
    const std::vector<int64_t> sizes = share_sizes(shares, total);
    EXPECT_EQ(std::accumulate(sizes.begin(), sizes.end(), int64_t{0}), total) << "trial " << trial;
    for (size_t w = 0; w < shares.size(); ++w) {
      EXPECT_GE(sizes[w], 1);
      // Rounding moves a size less than one sample off its quota, plus the at most one sample
      // per worker taken for a worker that would have none.
      EXPECT_LT(std::abs(static_cast<double>(sizes[w]) - shares[w] * static_cast<double>(total)),
                static_cast<double>(1 + shares.size()))
          << "trial " << trial << " worker " << w;
    }
  }
}

TEST(ShareCutTest, ShrinkingWorkersGiveTheirExcessToTheGrowingOnes) {
  // Sizes 6, 6, 2, 2 to 4 each: workers 0 and 1 give two samples each, at positions
  // (2j + 1)·6 / 4 = 1 and 4 of their lists; workers 2 and 3 receive them in that order.
  const CutShards before{{0, 1, 2, 3, 4, 5}, {6, 7, 8, 9, 10, 11}, {12, 13}, {14, 15}};
  const CutShards after = cut_to_shares(before, std::vector{0.25, 0.25, 0.25, 0.25});
  EXPECT_EQ(after, (CutShards{{0, 2, 3, 5}, {6, 8, 9, 11}, {1, 4, 12, 13}, {7, 10, 14, 15}}));
}

TEST(ShareCutTest, OneGrowingWorkerReceivesFromEveryShrinkingOne) {
  // Sizes 4, 4, 4 to 6, 3, 3: the two samples that must move, and no more, one from each.
  const CutShards before{{0, 3, 6, 9}, {1, 4, 7, 10}, {2, 5, 8, 11}};
  const CutShards after = cut_to_shares(before, std::vector{0.5, 0.25, 0.25});
  EXPECT_EQ(after, (CutShards{{0, 3, 6, 7, 8, 9}, {1, 4, 10}, {2, 5, 11}}));
}

TEST(ShareCutTest, ALabelSkewedPartitionKeepsItsSamplesAndItsSkew) {
  // Stored class by class, so each shard's ascending list is its classes one after another.
  std::vector<int64_t> labels;
  for (int64_t i = 0; i < 240; ++i) labels.push_back(i / 24);
  const CutShards before = partition_samples(labels, 10, 4, "noniid", 2, 17);
  const std::vector<double> shares{0.1, 0.4, 0.3, 0.2};
  const CutShards after = cut_to_shares(before, shares);

  std::vector<int64_t> all;
  for (const auto& shard : after) {
    EXPECT_TRUE(std::ranges::is_sorted(shard));
    all.insert(all.end(), shard.begin(), shard.end());
  }
  std::ranges::sort(all);
  std::vector<int64_t> every(labels.size());
  std::iota(every.begin(), every.end(), int64_t{0});
  EXPECT_EQ(all, every) << "no sample lost or duplicated";

  const std::vector<int64_t> sizes = share_sizes(shares, 240);
  int64_t excess = 0;
  int64_t moved = 0;
  for (size_t w = 0; w < after.size(); ++w) {
    EXPECT_EQ(static_cast<int64_t>(after[w].size()), sizes[w]) << "worker " << w;
    excess += std::max<int64_t>(0, static_cast<int64_t>(before[w].size()) - sizes[w]);
    moved += samples_moved_in(before[w], after[w]);
    // A shrinking worker keeps only its own samples, a growing one all of them.
    EXPECT_TRUE(std::ranges::includes(before[w], after[w]) ||
                std::ranges::includes(after[w], before[w]))
        << "worker " << w;
  }
  EXPECT_EQ(moved, excess) << "only the samples that had to move";

  // Giving samples spread over its list, a shrinking worker keeps every class it held.
  for (size_t w = 0; w < after.size(); ++w) {
    std::set<int64_t> held;
    std::set<int64_t> kept;
    for (const int64_t i : before[w]) held.insert(labels[static_cast<size_t>(i)]);
    for (const int64_t i : after[w]) kept.insert(labels[static_cast<size_t>(i)]);
    EXPECT_TRUE(std::ranges::includes(kept, held)) << "worker " << w;
  }
}

TEST(ShareCutTest, BadSharesAreNamed) {
  const CutShards shards{{0, 1}, {2, 3}};
  const auto cut_error = [&](std::vector<double> shares) {
    return [&shards, shares] { cut_to_shares(shards, shares); };
  };
  EXPECT_THAT(cut_error({1.0}),
              ThrowsMessage<std::invalid_argument>(
                  StrEq("data shares: 1 shares for 2 workers; there must be one per worker")));
  EXPECT_THAT(cut_error({1.5, -0.5}),
              ThrowsMessage<std::invalid_argument>(StrEq(
                  "data shares: worker 1's share is -0.5; a share must be finite and at least 0")));
  EXPECT_THAT(cut_error({std::nan(""), 0.5}),
              ThrowsMessage<std::invalid_argument>(StrEq(
                  "data shares: worker 0's share is nan; a share must be finite and at least 0")));
  EXPECT_THAT(cut_error({0.5, 0.4}),
              ThrowsMessage<std::invalid_argument>(
                  StrEq("data shares: they sum to 0.9; they must sum to 1 (within 1e-9)")));
  EXPECT_THAT([] { share_sizes(std::vector<double>{}, 5); },
              ThrowsMessage<std::invalid_argument>(
                  StrEq("data shares: none given; there must be one per worker")));
  EXPECT_THAT(
      [] {
        share_sizes(std::vector{0.5, 0.25, 0.25}, 2);
      },
      ThrowsMessage<std::invalid_argument>(
          StrEq("data shares: 2 samples for 3 workers; every worker needs at least one")));
}

}  // namespace
}  // namespace hetps::data
