#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "checkpoint/checkpoint_error.h"
#include "engine/stall_inspector.h"
#include "support/through_cbor.h"

namespace hetps::engine {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

StallInspector warn_at_two_stop_at_five() {
  return StallInspector(2.0, 5.0, [](int worker) { return "worker " + std::to_string(worker); });
}

TEST(StallInspectorStateTest, ARestoredInspectorWarnsAndStopsAsTheSavedOneDoes) {
  StallInspector original = warn_at_two_stop_at_five();
  original.expect(0, 0.1, "its first pull");
  original.expect(2, 1.0 / 3);
  original.expect(5, 1.7);
  original.held_up(5, "server shard 1's slice of its last reply");
  original.check(2.2);  // worker 0 warned; workers 2 and 5 not yet
  StallInspector restored = warn_at_two_stop_at_five();
  restored.restore_state(testing::through_cbor(original.save_state()));
  EXPECT_EQ(restored.save_state(), original.save_state());
  EXPECT_EQ(restored.next_check(), original.next_check());
  for (double now : {2.5, 3.8, 5.2, 7.0}) {
    const StallInspector::Findings expected = original.check(now);
    const StallInspector::Findings found = restored.check(now);
    EXPECT_EQ(found.warnings, expected.warnings) << "at " << now;
    EXPECT_EQ(found.timeout, expected.timeout) << "at " << now;
    EXPECT_EQ(restored.next_check(), original.next_check());
  }
}

TEST(StallInspectorStateTest, RefusesAWorkerGivenTwice) {
  StallInspector original = warn_at_two_stop_at_five();
  original.expect(1, 0.5);
  nlohmann::json twice = original.save_state();
  twice["waits"].push_back(twice["waits"][0]);
  StallInspector restored = warn_at_two_stop_at_five();
  EXPECT_THAT([&] { restored.restore_state(twice); },
              ThrowsMessage<checkpoint::CheckpointError>(
                  HasSubstr("the stall inspector: worker 1's wait is given twice")));
  EXPECT_EQ(restored.next_check(), std::numeric_limits<double>::infinity())
      << "a refused state changes nothing";
}

}  // namespace
}  // namespace hetps::engine
