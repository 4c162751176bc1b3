#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "checkpoint/checkpoint_error.h"
#include "metrics/activity_timeline.h"
#include "support/through_cbor.h"

namespace hetps::metrics {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// Cycles `from` to `to` of two workers, worker 1 twice as slow and stopped at cycle 70;
// durations that are no short decimals.
void drive_timeline(ActivityTimeline& timeline, int from, int to) {
  for (int c = from; c < to; ++c) {
    for (int w = 0; w < 2; ++w) {
      WorkerActivity& activity = timeline.worker(w);
      const double start = (w + 1) * c / 3.0;
      activity.begin_cycle();
      activity.record(Activity::kCommunicate, start, start + 0.01 * (w + 1));
      activity.record(Activity::kCompute, start + 0.03, start + 0.2 / 7.0 * (w + 2));
      if (w == 1 && c == 70) activity.stop_at(start + 0.05);
    }
  }
}

TEST(ActivityTimelineStateTest, ARestoredCopyKeepsSamplingTheSameCycles) {
  ActivityTimeline original(2, 40);  // small: the stride doubles before and after the save
  drive_timeline(original, 0, 50);
  ASSERT_GT(original.cycle_stride(), 1);
  ActivityTimeline restored(2, 40);
  restored.restore_state(testing::through_cbor(original.save_state()));
  EXPECT_EQ(restored.save_state(), original.save_state());

  drive_timeline(original, 50, 200);
  drive_timeline(restored, 50, 200);
  original.end_at(100);
  restored.end_at(100);
  EXPECT_GT(original.cycle_stride(), 4);
  EXPECT_EQ(restored.cycle_stride(), original.cycle_stride());
  EXPECT_EQ(restored.whole_cycles(), original.whole_cycles());
  for (int w = 0; w < 2; ++w) {
    EXPECT_EQ(restored.workers()[w].intervals(), original.workers()[w].intervals());
    EXPECT_EQ(restored.workers()[w].to_doubles(), original.workers()[w].to_doubles());
  }
}

TEST(ActivityTimelineStateTest, RefusesAnotherWorkerCountOrMoreIntervalsThanTheBufferHolds) {
  ActivityTimeline original(2, 40);
  drive_timeline(original, 0, 10);
  ActivityTimeline three(3, 40);
  EXPECT_THAT([&] { three.restore_state(original.save_state()); },
              ThrowsMessage<checkpoint::CheckpointError>(
                  HasSubstr("the activity timeline: holds 2 workers, expected 3")));
  ActivityTimeline smaller(2, 8);
  const nlohmann::json before = smaller.save_state();
  ASSERT_GT(original.workers()[0].intervals().size(), 8u);
  EXPECT_THAT([&] { smaller.restore_state(original.save_state()); },
              ThrowsMessage<checkpoint::CheckpointError>(
                  HasSubstr("the activity timeline: worker 0: a worker's timeline of ")));
  EXPECT_THAT([&] { smaller.restore_state(original.save_state()); },
              ThrowsMessage<checkpoint::CheckpointError>(HasSubstr("of at most 8 intervals")));
  EXPECT_EQ(smaller.save_state(), before) << "a refused state changes nothing";
}

}  // namespace
}  // namespace hetps::metrics
