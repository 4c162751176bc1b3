#include <gtest/gtest.h>

#include <optional>
#include <thread>
#include <vector>

#include "engine/model_snapshots.h"

namespace hetps::engine {
namespace {

using Model = std::vector<float>;

TEST(ModelSnapshotsTest, OneVersionIsOneSharedSnapshot) {
  ModelSnapshots snapshots;
  const Model model = {1, 2, 3};
  ModelSnapshot first = snapshots.at(model, 7);
  ModelSnapshot second = snapshots.at(model, 7);
  EXPECT_EQ(first.get(), second.get());
  EXPECT_EQ(*first, model);
}

TEST(ModelSnapshotsTest, ANewVersionIsANewCopyAndTheOldOneStaysIntact) {
  ModelSnapshots snapshots;
  Model model = {1, 2, 3};
  ModelSnapshot old = snapshots.at(model, 1);
  model = {4, 5, 6};
  ModelSnapshot fresh = snapshots.at(model, 2);
  EXPECT_NE(fresh->data(), old->data());
  EXPECT_EQ(*fresh, (Model{4, 5, 6}));
  EXPECT_EQ(*old, (Model{1, 2, 3}));
}

TEST(ModelSnapshotsTest, ABufferIsReusedOnlyOnceEveryReaderLetsGo) {
  ModelSnapshots snapshots;
  ModelSnapshot first = snapshots.at(Model{1, 1}, 1);
  ModelSnapshot reader = first;
  const float* buffer = first->data();
  // Each version below stays held by the test, so only version 1's buffer can come free.
  ModelSnapshot second = snapshots.at(Model{2, 2}, 2);
  first.reset();
  ModelSnapshot third = snapshots.at(Model{3, 3}, 3);
  EXPECT_NE(third->data(), buffer) << "reused while a reader still holds it";
  EXPECT_EQ(*reader, (Model{1, 1}));

  reader.reset();
  ModelSnapshot fourth = snapshots.at(Model{4, 4}, 4);
  EXPECT_EQ(fourth->data(), buffer);
  EXPECT_EQ(*fourth, (Model{4, 4}));
  EXPECT_EQ(*second, (Model{2, 2}));
  EXPECT_EQ(*third, (Model{3, 3}));
}

TEST(ModelSnapshotsTest, SnapshotsOutliveTheirSource) {
  ModelSnapshot kept;
  std::optional<ModelSnapshots> snapshots(std::in_place);
  snapshots->at(Model{1, 2}, 1);  // its buffer lies in the free list when the source dies
  kept = snapshots->at(Model{3, 4}, 2);
  ModelSnapshot on_another_thread = snapshots->at(Model{5, 6}, 3);
  snapshots.reset();

  EXPECT_EQ(*kept, (Model{3, 4}));
  // A worker thread lets go last: the deleter returns the buffer to a list whose owner is gone.
  std::thread reader([snapshot = std::move(on_another_thread)]() mutable { snapshot.reset(); });
  reader.join();
  kept.reset();
}

// A reused buffer must take the new model's size: a smaller model's snapshot must not carry the
// old model's tail (nor a larger one be copied past the buffer's end).
TEST(ModelSnapshotsTest, AReusedBufferTakesTheNewModelsSize) {
  ModelSnapshots snapshots;
  snapshots.at(Model{1, 2, 3}, 1);
  snapshots.at(Model{4, 5, 6}, 2);  // version 1's buffer comes free
  EXPECT_EQ(*snapshots.at(Model{7, 8}, 3), (Model{7, 8}));
}

}  // namespace
}  // namespace hetps::engine
