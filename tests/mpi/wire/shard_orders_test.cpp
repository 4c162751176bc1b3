#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "mpi/wire/message_error.h"
#include "mpi/wire/shard_orders.h"

namespace hetps::mpi {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

constexpr MessageBounds kOrderBounds{.workers = 4, .model_floats = 100};
constexpr int kRankZero = 0;

TEST(ShardOrdersTest, AnOrderComesBackAsItWasSent) {
  ShardOrder apply(ShardOrder::Kind::Apply);
  apply.apply = {protocol::UpdateKind::Delta, {4, 9, 2}, {0.5, 0.25, 0.25}};
  apply.samples_processed = 1234;
  apply.update_id = 7;
  apply.settings = {0.125, 0.45};
  apply.worker = 3;
  apply.version = 99;
  const ShardOrder back = decode_shard_order(encode(apply), kRankZero, kOrderBounds);
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

// Orders without updates once passed a null pointer to memcpy (found by
// fuzz/mpi_messages.cpp); UBSan, in the sanitizer build, would report it here.
TEST(ShardOrdersTest, EveryKindWithItsDefaultsComesBack) {
  for (const auto kind :
       {ShardOrder::Kind::Discard, ShardOrder::Kind::Override, ShardOrder::Kind::Reply,
        ShardOrder::Kind::SendModel, ShardOrder::Kind::Stop, ShardOrder::Kind::SaveState,
        ShardOrder::Kind::Keep}) {
    EXPECT_EQ(decode_shard_order(encode(ShardOrder(kind)), kRankZero, kOrderBounds).kind, kind);
  }
}

TEST(ShardOrdersTest, TruncatedOrLongerBytesAreRefusedNamingTheSender) {
  ShardOrder apply(ShardOrder::Kind::Apply);
  apply.apply = {protocol::UpdateKind::Gradient, {1, 2}, {0.5, 0.5}};
  const std::vector<char> bytes = encode(apply);
  EXPECT_THAT([&] { decode_shard_order(std::span(bytes).first(10), kRankZero, kOrderBounds); },
              ThrowsMessage<MessageError>(
                  HasSubstr("rank 0 sent a shard order of 10 bytes, shorter than its header")));
  EXPECT_THAT(
      [&] {
        decode_shard_order(std::span(bytes).first(bytes.size() - 1), kRankZero, kOrderBounds);
      },
      ThrowsMessage<MessageError>(HasSubstr("announcing 2 update ids and 2 weights")));
  std::vector<char> longer = bytes;
  longer.push_back(0);
  EXPECT_THROW(decode_shard_order(longer, kRankZero, kOrderBounds), MessageError);
}

// The header's first field is the kind, an int.
std::vector<char> with_kind(ShardOrder order, int kind) {
  std::vector<char> bytes = encode(order);
  std::memcpy(bytes.data(), &kind, sizeof(kind));
  return bytes;
}

TEST(ShardOrdersTest, AnOrderOfUnknownKindIsRefused) {
  EXPECT_THAT([] { decode_shard_order(with_kind(ShardOrder(), 8), kRankZero, kOrderBounds); },
              ThrowsMessage<MessageError>(HasSubstr("a shard order of unknown kind 8")));
  EXPECT_THROW(decode_shard_order(with_kind(ShardOrder(), -1), kRankZero, kOrderBounds),
               MessageError);
}

TEST(ShardOrdersTest, ValuesNoRankZeroSendsAreRefused) {
  const auto refused = [](const ShardOrder& order) {
    try {
      decode_shard_order(encode(order), kRankZero, kOrderBounds);
    } catch (const MessageError& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  ShardOrder apply(ShardOrder::Kind::Apply);
  EXPECT_THAT(refused(apply), HasSubstr("0 update ids and 0 weights, expected one weight per "
                                        "update and one update at least"));
  apply.apply = {protocol::UpdateKind::Gradient, {1, 2}, {1.0}};
  EXPECT_THAT(refused(apply), HasSubstr("2 update ids and 1 weights"));
  apply.apply = {static_cast<protocol::UpdateKind>(2), {1}, {1.0}};
  EXPECT_THAT(refused(apply), HasSubstr("unknown update kind 2"));
  apply.apply = {protocol::UpdateKind::Gradient, {1}, {std::numeric_limits<double>::quiet_NaN()}};
  EXPECT_THAT(refused(apply), HasSubstr("applying update 1 with weight nan"));
  apply.apply = {protocol::UpdateKind::Gradient, {-3}, {1.0}};
  EXPECT_THAT(refused(apply), HasSubstr("applying update -3"));

  ShardOrder reply(ShardOrder::Kind::Reply);
  reply.worker = 4;
  EXPECT_THAT(refused(reply), HasSubstr("to worker 4, expected a worker id 0 to 3"));
  reply.worker = 0;
  reply.version = -1;
  EXPECT_THAT(refused(reply), HasSubstr("version -1, expected none negative"));

  ShardOrder change(ShardOrder::Kind::Override);
  change.settings = {std::numeric_limits<double>::infinity(), 0.9};
  EXPECT_THAT(refused(change), HasSubstr("learning-rate scale inf"));
}

}  // namespace
}  // namespace hetps::mpi
