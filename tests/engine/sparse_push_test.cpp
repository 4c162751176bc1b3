#include "engine/sparse_push.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace hetps::engine {
namespace {

using ::testing::ElementsAre;

// Keys 1, 4, 5 and 9 of a model of 10, cut at 5 between two shards.
worker::SparseDelta four_entries() {
  return {.dense_size = 10, .indices = {1, 4, 5, 9}, .values = {0.5f, -1.0f, 2.0f, 3.0f}};
}
const std::vector<params::KeyRange> kTwoShards = {{0, 5}, {5, 10}};

TEST(SparsePushTest, EachShardGetsTheEntriesOfItsKeyRange) {
  const worker::SparseDelta delta = four_entries();
  const SparseSlice first = slice_of(delta, kTwoShards[0]);
  const SparseSlice second = slice_of(delta, kTwoShards[1]);
  EXPECT_THAT(first.indices, ElementsAre(1u, 4u));
  EXPECT_THAT(first.values, ElementsAre(0.5f, -1.0f));
  EXPECT_THAT(second.indices, ElementsAre(5u, 9u));
  EXPECT_THAT(second.values, ElementsAre(2.0f, 3.0f));
  EXPECT_TRUE(slice_of(delta, {2, 4}).indices.empty());
  EXPECT_THAT(shard_bytes(delta, kTwoShards), ElementsAre(16.0, 16.0));
}

TEST(SparsePushTest, AShardWritesItsEntriesAndZerosOverItsRangeOnly) {
  const worker::SparseDelta delta = four_entries();
  std::vector<float> buffer(10, 7.0f);  // a reused buffer's stale contents
  expand_into(slice_of(delta, kTwoShards[1]), kTwoShards[1], buffer);
  EXPECT_THAT(buffer, ElementsAre(7, 7, 7, 7, 7, 2, 0, 0, 0, 3));
  expand_into(slice_of(delta, kTwoShards[0]), kTwoShards[0], buffer);
  EXPECT_THAT(buffer, ElementsAre(0, 0.5, 0, 0, -1, 2, 0, 0, 0, 3));
}

TEST(SparsePushTest, AnEntryOutsideTheShardsRangeIsRefused) {
  const worker::SparseDelta delta = four_entries();
  std::vector<float> buffer(10);
  EXPECT_THAT(
      [&] {
        expand_into(slice_of(delta, {0, 10}), kTwoShards[0], buffer);
      },
      ::testing::ThrowsMessage<std::invalid_argument>(
          ::testing::HasSubstr("a sparse slice for keys [0, 5) holds key 5")));
  const std::vector<uint32_t> indices = {1};
  EXPECT_THROW(expand_into({indices, {}}, kTwoShards[0], buffer), std::invalid_argument);
}

TEST(SparsePushTest, APushCountsEightBytesPerKeptEntryOrFourPerFloat) {
  const worker::SparseDelta delta = four_entries();
  EXPECT_EQ(push_bytes(10, &delta), 4 * 8);
  EXPECT_EQ(push_bytes(10, nullptr), 10 * 4);
}

}  // namespace
}  // namespace hetps::engine
