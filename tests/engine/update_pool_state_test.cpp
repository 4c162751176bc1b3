#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "checkpoint/checkpoint_error.h"
#include "engine/update_pool.h"
#include "protocol/update_info_state.h"
#include "support/through_cbor.h"

namespace hetps::engine {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// An update whose every field differs from its default and from the other updates'.
protocol::UpdateInfo leader_update(int id) {
  protocol::UpdateInfo info;
  info.id = id;
  info.worker = id % 3;
  info.kind = id % 2 == 0 ? protocol::UpdateKind::Delta : protocol::UpdateKind::Gradient;
  info.base_version = 10 + id;
  info.clock = 20 + id;
  info.steps = 3 + id;
  info.samples = 96 + id;
  info.train_loss = 1.0 / (7 + id);
  info.compute_seconds = 0.1 / 3 + id;
  info.comm_seconds = 0.02 / 7;
  info.push_seconds = 0.01 / 7;
  info.pull_seconds = 0.01 / 7 + 1e-17;
  info.now = 12.0 / 11 + id;
  info.members = {id + 1, id + 2};
  info.merged_step_seconds = {0.3 / 7, 0.4 / 7, 0.5 / 7 + id};
  return info;
}

// Acquires an update, fills its info and buffer; returns its id.
int add_update(UpdatePool& pool, size_t floats) {
  const int id = pool.acquire();
  pool.at(id).info = leader_update(id);
  std::vector<float> values(floats);
  for (size_t i = 0; i < floats; ++i) values[i] = static_cast<float>(id + 1) / (3.0f + i);
  std::copy(values.begin(), values.end(), pool.buffer(id).begin());
  return id;
}

TEST(UpdatePoolStateTest, ARestoredPoolHoldsTheSameUpdatesUnderTheSameIds) {
  constexpr size_t kFloats = 5;
  UpdatePool original(kFloats);
  for (int u = 0; u < 6; ++u) add_update(original, kFloats);
  original.release(1);
  original.release(4);
  UpdatePool restored(kFloats);
  restored.restore_state(testing::through_cbor(original.save_state()));
  EXPECT_EQ(restored.save_state(), original.save_state());
  for (int id : {0, 2, 3, 5}) {
    EXPECT_TRUE(restored.at(id).info == leader_update(id)) << "update " << id;
    EXPECT_TRUE(std::ranges::equal(restored.buffer(id), original.buffer(id))) << "update " << id;
  }
  EXPECT_THROW(restored.at(1), std::logic_error) << "released before the save";
  // Both go on giving the same ids, reusing buffers as they free them.
  for (int released : {0, 3, 6}) {
    EXPECT_EQ(add_update(restored, kFloats), add_update(original, kFloats));
    restored.release(released);
    original.release(released);
  }
  EXPECT_EQ(restored.save_state(), original.save_state());
}

TEST(UpdatePoolStateTest, RefusesABufferOfAnotherModelSizeAndAnIdNotYetGiven) {
  UpdatePool original(6);
  add_update(original, 6);
  UpdatePool smaller(5);
  EXPECT_THAT([&] { smaller.restore_state(original.save_state()); },
              ThrowsMessage<checkpoint::CheckpointError>(HasSubstr(
                  "the updates in flight: update 0's buffer: holds 6 floats, expected 5")));
  nlohmann::json ahead = original.save_state();
  ahead["next_id"] = 0;
  UpdatePool same(6);
  EXPECT_THAT([&] { same.restore_state(ahead); },
              ThrowsMessage<checkpoint::CheckpointError>(
                  HasSubstr("the updates in flight: update 0: expected an id from 0 to -1")));
  EXPECT_EQ(same.acquire(), 0) << "a refused state changes nothing";
}

TEST(UpdateInfoStateTest, RefusesAnUnknownKind) {
  nlohmann::json saved = leader_update(1);
  saved["kind"] = "momentum";
  EXPECT_THAT([&] { saved.get<protocol::UpdateInfo>(); },
              ThrowsMessage<std::invalid_argument>(
                  HasSubstr("update kind 'momentum': expected \"gradient\" or \"delta\"")));
}

}  // namespace
}  // namespace hetps::engine
