#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "mpi/wire/message_checks.h"
#include "mpi/wire/message_error.h"

namespace hetps::mpi {
namespace {

using ::testing::ThrowsMessage;

TEST(MessageChecksTest, AMessageOfPartElementsIsRefused) {
  EXPECT_EQ(elements_in(12, sizeof(int), 3, "ids"), 3u);
  EXPECT_EQ(elements_in(0, sizeof(double), 3, "ids"), 0u);
  EXPECT_THAT([] { elements_in(13, sizeof(int), 3, "the members of a reply"); },
              ThrowsMessage<MessageError>(
                  "rank 3 sent the members of a reply as 13 bytes, not a whole number of "
                  "4-byte elements"));
}

TEST(MessageChecksTest, AMessageShorterOrLongerThanAnnouncedIsRefused) {
  EXPECT_NO_THROW(check_length(4, 4, 2, "a model"));
  EXPECT_THAT([] { check_length(3, 4, 2, "a model"); },
              ThrowsMessage<MessageError>("rank 2 sent a model as 3 elements, expected 4"));
  EXPECT_THROW(check_length(5, 4, 2, "a model"), MessageError);
}

TEST(MessageChecksTest, IdsOutsideTheRunsWorkersAreRefused) {
  const std::vector<int> good = {0, 3, 1};
  EXPECT_NO_THROW(check_worker_ids(good, 4, 1, "members"));
  const std::vector<int> bad = {0, 4};
  EXPECT_THAT([&] { check_worker_ids(bad, 4, 1, "members"); },
              ThrowsMessage<MessageError>(
                  "rank 1 sent members naming worker 4, expected a worker id 0 to 3"));
  const std::vector<int> negative = {-1};
  EXPECT_THROW(check_worker_ids(negative, 4, 1, "members"), MessageError);
}

TEST(MessageChecksTest, ASparseSliceHoldsAscendingKeysOfItsRangeAndAValueEach) {
  const params::KeyRange keys{10, 20};
  const std::vector<uint32_t> good = {10, 12, 19};
  EXPECT_NO_THROW(check_sparse_slice(good, 3, keys, 4));
  EXPECT_THAT([&] { check_sparse_slice(good, 2, keys, 4); },
              ThrowsMessage<MessageError>("rank 4 sent the kept entries of a compressed update "
                                          "as 2 elements, expected 3"));
  const std::vector<uint32_t> outside = {10, 20};
  EXPECT_THAT([&] { check_sparse_slice(outside, 2, keys, 4); },
              ThrowsMessage<MessageError>("rank 4 sent the kept entries of a compressed update "
                                          "with key 20 at entry 1, expected keys in [10, 20), "
                                          "ascending"));
  const std::vector<uint32_t> repeated = {12, 12};
  EXPECT_THROW(check_sparse_slice(repeated, 2, keys, 4), MessageError);
}

}  // namespace
}  // namespace hetps::mpi
