#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "mpi/shard_orders.h"

namespace hetps::mpi {
namespace {

TEST(ShardOrdersTest, AnOrderComesBackAsItWasSent) {
  ShardOrder apply(ShardOrder::Kind::Apply);
  apply.apply = {protocol::UpdateKind::Delta, {4, 9, 2}, {0.5, 0.25, 0.25}};
  apply.samples_processed = 1234;
  apply.update_id = 7;
  apply.settings = {0.125, 0.45};
  apply.worker = 3;
  apply.version = 99;
  const ShardOrder back = decode_shard_order(encode(apply));
  EXPECT_EQ(back.kind, ShardOrder::Kind::Apply);
  EXPECT_EQ(back.apply.kind, protocol::UpdateKind::Delta);
  EXPECT_EQ(back.apply.update_ids, apply.apply.update_ids);
  EXPECT_EQ(back.apply.weights, apply.apply.weights);
  EXPECT_EQ(back.samples_processed, 1234);
  EXPECT_EQ(back.update_id, 7);
  EXPECT_EQ(back.settings.lr_scale, 0.125);
  EXPECT_EQ(back.settings.momentum, 0.45);
  EXPECT_EQ(back.worker, 3);
  EXPECT_EQ(back.version, 99);
}

TEST(ShardOrdersTest, TruncatedOrLongerBytesAreRefused) {
  ShardOrder apply(ShardOrder::Kind::Apply);
  apply.apply = {protocol::UpdateKind::Gradient, {1, 2}, {0.5, 0.5}};
  const std::vector<char> bytes = encode(apply);
  EXPECT_THAT([&] { decode_shard_order(std::span(bytes).first(10)); },
              ::testing::ThrowsMessage<std::invalid_argument>(
                  ::testing::HasSubstr("shorter than its header")));
  EXPECT_THAT([&] { decode_shard_order(std::span(bytes).first(bytes.size() - 1)); },
              ::testing::ThrowsMessage<std::invalid_argument>(
                  ::testing::HasSubstr("announces 2 update ids and 2 weights")));
  std::vector<char> longer = bytes;
  longer.push_back(0);
  EXPECT_THROW(decode_shard_order(longer), std::invalid_argument);
}

}  // namespace
}  // namespace hetps::mpi
