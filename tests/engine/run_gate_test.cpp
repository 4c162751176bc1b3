#include <gtest/gtest.h>

#include <atomic>
#include <latch>
#include <thread>

#include "engine/run_gate.h"
#include "support/deadlines.h"

namespace hetps::engine {
namespace {

using testing::far_deadline;
using testing::past_deadline;

TEST(RunGateTest, ARunningGateLetsEveryoneThrough) {
  RunGate gate;
  EXPECT_FALSE(gate.stopped());
  EXPECT_TRUE(gate.wait_while_paused());
  EXPECT_TRUE(gate.sleep_until(past_deadline()));
}

TEST(RunGateTest, AStoppedGateAnswersFalseAtOnce) {
  RunGate gate;
  gate.stop();
  EXPECT_TRUE(gate.stopped());
  EXPECT_FALSE(gate.wait_while_paused());
  EXPECT_FALSE(gate.sleep_until(far_deadline()));
}

TEST(RunGateTest, StopWakesASleeper) {
  RunGate gate;
  bool slept_through = true;
  std::thread sleeper([&] { slept_through = gate.sleep_until(far_deadline()); });
  gate.stop();
  sleeper.join();
  EXPECT_FALSE(slept_through);
}

TEST(RunGateTest, StopWakesAThreadWaitingOutAPause) {
  RunGate gate;
  gate.pause();
  bool resumed = true;
  std::thread waiter([&] { resumed = gate.wait_while_paused(); });
  gate.stop();
  waiter.join();
  EXPECT_FALSE(resumed);
}

TEST(RunGateTest, StopWakesASleeperHeldByAPause) {
  RunGate gate;
  gate.pause();
  bool slept_through = true;
  std::thread sleeper([&] { slept_through = gate.sleep_until(past_deadline()); });
  gate.stop();
  sleeper.join();
  EXPECT_FALSE(slept_through);
}

// The held thread records whether the resume had happened when it got through. With the pause
// holding it, it cannot get through before; without, it would almost always get through while
// the test, just woken from the latch, has yet to set `resumed`. No outcome depends on timing
// when the gate works.
TEST(RunGateTest, APauseHoldsASleeperPastItsDeadlineUntilResume) {
  RunGate gate;
  gate.pause();
  std::latch sleeping(1);
  std::atomic<bool> resumed = false;
  bool slept_through = false;
  bool got_through_after_resume = false;
  std::thread sleeper([&] {
    sleeping.count_down();
    slept_through = gate.sleep_until(past_deadline());
    got_through_after_resume = resumed.load();
  });
  sleeping.wait();
  resumed = true;
  gate.resume();
  sleeper.join();
  EXPECT_TRUE(slept_through);
  EXPECT_TRUE(got_through_after_resume);
}

TEST(RunGateTest, APauseHoldsAWaiterUntilResume) {
  RunGate gate;
  gate.pause();
  std::latch waiting(1);
  std::atomic<bool> resumed = false;
  bool running = false;
  bool got_through_after_resume = false;
  std::thread waiter([&] {
    waiting.count_down();
    running = gate.wait_while_paused();
    got_through_after_resume = resumed.load();
  });
  waiting.wait();
  resumed = true;
  gate.resume();
  waiter.join();
  EXPECT_TRUE(running);
  EXPECT_TRUE(got_through_after_resume);
}

}  // namespace
}  // namespace hetps::engine
