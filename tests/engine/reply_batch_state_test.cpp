#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "checkpoint/checkpoint_error.h"
#include "engine/reply_batch.h"
#include "support/through_cbor.h"

namespace hetps::engine {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

std::vector<std::pair<int, int>> routes_taken(ReplyBatch& batch) {
  std::vector<std::pair<int, int>> routes;
  for (const auto& route : batch.take()) routes.emplace_back(route.worker, route.via);
  return routes;
}

TEST(ReplyBatchStateTest, AMemberStillOwedARelayIsRelayedAfterARestore) {
  ReplyBatch original(4);
  original.merged(3, {0, 1});
  original.add(0, {});  // member 1's reply is held: it is still owed worker 3's relay
  routes_taken(original);
  ReplyBatch restored(4);
  restored.restore_state(testing::through_cbor(original.save_state()));
  EXPECT_EQ(restored.save_state(), original.save_state());
  for (ReplyBatch* batch : {&original, &restored}) {
    batch->add(3, {});
    batch->add(1, {});
  }
  const auto expected = routes_taken(original);
  EXPECT_EQ(expected, (std::vector<std::pair<int, int>>{{3, protocol::kServer}, {1, 3}}));
  EXPECT_EQ(routes_taken(restored), expected);
}

TEST(ReplyBatchStateTest, RefusesAnotherWorkerCountAndSavesNoPendingReplies) {
  ReplyBatch four(4);
  ReplyBatch three(3);
  EXPECT_THAT([&] { three.restore_state(four.save_state()); },
              ThrowsMessage<checkpoint::CheckpointError>(
                  HasSubstr("the pull replies' relays: holds 4 workers, expected 3")));
  four.add(0, {});
  EXPECT_THROW(four.save_state(), std::logic_error);
}

}  // namespace
}  // namespace hetps::engine
