#include "worker/top_k.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

namespace hetps::worker {
namespace {

using ::testing::ElementsAre;
using ::testing::StrEq;
using ::testing::ThrowsMessage;

// The reference selection, by a full sort: magnitudes descending, the lower index first on a tie.
std::vector<uint32_t> sorted_top_indices(const std::vector<float>& delta, uint64_t kept) {
  std::vector<uint32_t> order(delta.size());
  std::iota(order.begin(), order.end(), 0u);
  std::ranges::stable_sort(order, std::greater<>(),
                           [&](uint32_t i) { return std::fabs(delta[i]); });
  order.resize(kept);
  std::ranges::sort(order);
  return order;
}

TEST(TopKTest, KeepsTheCeilingOfTheRatio) {
  EXPECT_EQ(kept_entries(10, 0.25), 3u) << "2.5 entries round up";
  EXPECT_EQ(kept_entries(3, 0.7), 3u);
  EXPECT_EQ(kept_entries(10, 1e-9), 1u) << "a positive ratio sends something";
  EXPECT_EQ(kept_entries(0, 0.5), 0u);
  EXPECT_EQ(kept_entries(10'000'000, 1.0), 10'000'000u);
  EXPECT_EQ(kept_entries(100, 0.07), 7u) << "0.07 is stored slightly above 0.07";
  // k / n, which binary cannot always hold exactly, keeps exactly k.
  for (uint64_t entries = 1; entries <= 300; ++entries) {
    for (uint64_t kept = 1; kept <= entries; ++kept) {
      ASSERT_EQ(kept_entries(entries, static_cast<double>(kept) / static_cast<double>(entries)),
                kept)
          << kept << " of " << entries;
    }
  }
}

TEST(TopKTest, KeepsTheLargestMagnitudesInIndexOrder) {
  // Magnitudes 0.5 3 1 0 2.5 0.25 4 1: the four largest are 4, 3, 2.5 and a 1, the tie between
  // entries 2 and 7 going to the lower index.
  const std::vector<float> delta{0.5f, -3, 1, 0, 2.5f, -0.25f, 4, -1};
  const SparseDelta sparse = top_k(delta, 0.5);
  EXPECT_EQ(sparse.dense_size, 8u);
  EXPECT_THAT(sparse.indices, ElementsAre(1u, 2u, 4u, 6u));
  EXPECT_THAT(sparse.values, ElementsAre(-3.0f, 1.0f, 2.5f, 4.0f));
  EXPECT_EQ(sparse.bytes(), 4 * (4 + 4));
}

TEST(TopKTest, EqualMagnitudesGoToTheLowerIndices) {
  const std::vector<float> delta{-1, 1, 1, -1, 1};
  const SparseDelta sparse = top_k(delta, 0.4);
  EXPECT_THAT(sparse.indices, ElementsAre(0u, 1u));
  EXPECT_THAT(sparse.values, ElementsAre(-1.0f, 1.0f));
}

TEST(TopKTest, MatchesAFullSortOnRandomDeltasWithTies) {
  std::mt19937_64 random(7);
  // Few distinct magnitudes, so most selections end inside a run of ties.
  std::uniform_int_distribution<int> quarter(-12, 12);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<float> delta(1 + random() % 2000);
    for (float& value : delta) value = static_cast<float>(quarter(random)) / 4;
    const double keep_ratio = 0.01 + 0.99 * std::uniform_real_distribution<double>()(random);
    const uint64_t kept = kept_entries(delta.size(), keep_ratio);
    const SparseDelta sparse = top_k(delta, keep_ratio);
    ASSERT_EQ(sparse.indices, sorted_top_indices(delta, kept)) << "trial " << trial;
    for (size_t k = 0; k < sparse.indices.size(); ++k) {
      ASSERT_EQ(sparse.values[k], delta[sparse.indices[k]]);
    }
  }
}

TEST(TopKTest, AScratchBufferReusedAcrossDeltasGivesTheSameSelection) {
  std::mt19937 random(3);
  std::normal_distribution<float> normal;
  std::vector<float> scratch;
  for (size_t size : {1000u, 10u, 500u}) {
    std::vector<float> delta(size);
    for (float& value : delta) value = normal(random);
    EXPECT_EQ(top_k(delta, 0.05, scratch), top_k(delta, 0.05)) << size;
  }
}

TEST(TopKTest, ARatioOfOneKeepsEveryEntry) {
  const std::vector<float> delta{0, -2, 0, 1};
  const SparseDelta sparse = top_k(delta, 1.0);
  EXPECT_THAT(sparse.indices, ElementsAre(0u, 1u, 2u, 3u));
  EXPECT_THAT(sparse.values, ElementsAre(0.0f, -2.0f, 0.0f, 1.0f));
  EXPECT_EQ(sparse.bytes(), 32);
}

TEST(TopKTest, ANanCountsAsTheLargestMagnitude) {
  const std::vector<float> delta{1, std::numeric_limits<float>::quiet_NaN(), -2};
  const SparseDelta sparse = top_k(delta, 0.3);
  ASSERT_THAT(sparse.indices, ElementsAre(1u));
  EXPECT_TRUE(std::isnan(sparse.values[0]));
}

TEST(TopKTest, AddsASparseDeltaToADenseVector) {
  std::vector<float> dense{1, 1, 1, 1};
  add_sparse({.dense_size = 4, .indices = {1, 3}, .values = {0.5f, -2}}, dense);
  EXPECT_THAT(dense, ElementsAre(1.0f, 1.5f, 1.0f, -1.0f));
  EXPECT_THAT([&] { add_sparse({.dense_size = 5, .indices = {}, .values = {}}, dense); },
              ThrowsMessage<std::invalid_argument>(
                  StrEq("add_sparse: a delta cut from 5 entries added to a vector of 4")));
}

TEST(TopKTest, RejectsARatioOutsideZeroToOne) {
  const std::vector<float> delta{1, 2};
  for (const double ratio : {0.0, -0.5, 1.5}) {
    EXPECT_THAT([&] { top_k(delta, ratio); },
                ThrowsMessage<std::invalid_argument>(
                    StrEq(fmt::format("top-k: keep_ratio = {}; it must be in (0, 1]", ratio))));
  }
  EXPECT_THROW(top_k(delta, std::nan("")), std::invalid_argument);
}

TEST(ErrorFeedbackTest, WhatIsDroppedIsSentLater) {
  // Every value is a multiple of 1/4 with few bits, so every float sum below is exact.
  const std::vector<float> first{4, -0.5f, 1, 0.25f, -2, 0.75f};
  const std::vector<float> second{0.5f, -1.5f, 0.25f, 3, -0.25f, 0.5f};
  ErrorFeedback feedback(6);

  // Round 1: the sum is `first`; its two largest are 4 (entry 0) and -2 (entry 4).
  const SparseDelta sent_first = feedback.compress(first, 1.0 / 3);
  EXPECT_THAT(sent_first.indices, ElementsAre(0u, 4u));
  EXPECT_THAT(sent_first.values, ElementsAre(4.0f, -2.0f));
  EXPECT_THAT(feedback.residual(), ElementsAre(0.0f, -0.5f, 1.0f, 0.25f, 0.0f, 0.75f));

  // Round 2: the sum is [0.5, -2, 1.25, 3.25, -0.25, 1.25]; its two largest are 3.25 and -2,
  // of which -2 holds the -0.5 dropped in round 1.
  const SparseDelta sent_second = feedback.compress(second, 1.0 / 3);
  EXPECT_THAT(sent_second.indices, ElementsAre(1u, 3u));
  EXPECT_THAT(sent_second.values, ElementsAre(-2.0f, 3.25f));
  EXPECT_THAT(feedback.residual(), ElementsAre(0.5f, 0.0f, 1.25f, 0.0f, -0.25f, 1.25f));

  std::vector<float> total(feedback.residual().begin(), feedback.residual().end());
  add_sparse(sent_first, total);
  add_sparse(sent_second, total);
  EXPECT_THAT(total, ElementsAre(4.5f, -2.0f, 1.25f, 3.25f, -2.25f, 1.25f)) << "first + second";
}

TEST(ErrorFeedbackTest, NothingIsLostOverTwoRoundsOfAnyFloats) {
  // Exact, not within rounding, for any finite floats over two rounds: each entry of a round's
  // sum is either sent or kept, so entry i of sent + residual is, bit for bit, first[i] +
  // second[i] — added once, by the accumulator (dropped in round 1) or below (sent in round 1).
  std::mt19937_64 random(11);
  std::normal_distribution<float> normal(0, 1);
  std::vector<float> first(1000);
  std::vector<float> second(1000);
  for (float& value : first) value = normal(random);
  for (float& value : second) value = normal(random);
  ErrorFeedback feedback(first.size());
  const SparseDelta sent_first = feedback.compress(first, 0.1);
  const SparseDelta sent_second = feedback.compress(second, 0.1);
  EXPECT_EQ(sent_first.indices.size(), 100u);
  EXPECT_EQ(sent_second.indices.size(), 100u);

  std::vector<float> total(first.size(), 0);
  add_sparse(sent_first, total);
  add_sparse(sent_second, total);
  for (size_t i = 0; i < total.size(); ++i) {
    ASSERT_EQ(total[i] + feedback.residual()[i], first[i] + second[i]) << "entry " << i;
  }
}

TEST(ErrorFeedbackTest, ABadRoundLeavesTheResidualAsItWas) {
  ErrorFeedback feedback(3);
  const std::vector<float> delta{1, -2, 0.5f};
  feedback.compress(delta, 1.0 / 3);
  EXPECT_THAT(
      [&] { feedback.compress(delta, 0); },
      ThrowsMessage<std::invalid_argument>(StrEq("top-k: keep_ratio = 0; it must be in (0, 1]")));
  const std::vector<float> short_delta{1, 2};
  EXPECT_THAT([&] { feedback.compress(short_delta, 0.5); },
              ThrowsMessage<std::invalid_argument>(StrEq(
                  "error feedback: a delta of 2 entries for a residual of 3; they must match")));
  EXPECT_THAT(feedback.residual(), ElementsAre(1.0f, 0.0f, 0.5f));
}

}  // namespace
}  // namespace hetps::worker
