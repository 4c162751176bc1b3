#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "engine/stall_inspector.h"

namespace hetps::engine {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

// Warn after 2 s, stop after 5 s; workers are named the way an MPI engine would, so the
// messages show that `describe` (not a built-in "worker N") names them.
StallInspector two_and_five() {
  return StallInspector(2.0, 5.0, [](int worker) { return "rank " + std::to_string(worker + 1); });
}

TEST(StallInspectorTest, SaysNothingBeforeTheWarning) {
  StallInspector inspector = two_and_five();
  inspector.expect(3, 1.0);
  StallInspector::Findings findings = inspector.check(2.9);
  EXPECT_TRUE(findings.warnings.empty());
  EXPECT_FALSE(findings.timeout);
}

TEST(StallInspectorTest, WarnsOncePerWaitWhenItPassesTheWarning) {
  StallInspector inspector = two_and_five();
  inspector.expect(3, 1.0);
  StallInspector::Findings findings = inspector.check(3.0);
  ASSERT_EQ(findings.warnings.size(), 1u);
  EXPECT_EQ(findings.warnings[0],
            "slow: rank 4 (waiting for its update since 1.0 s, 2.0 s ago); "
            "run.stall_warning_s = 2");
  EXPECT_FALSE(findings.timeout);

  EXPECT_TRUE(inspector.check(4.0).warnings.empty());
  EXPECT_TRUE(inspector.check(5.9).warnings.empty());
}

TEST(StallInspectorTest, TimeoutNamesEveryOverdueWorkerAndTheSetting) {
  StallInspector inspector = two_and_five();
  inspector.expect(0, 0.0);
  inspector.expect(4, 0.5);
  inspector.expect(2, 10.0);  // not overdue: must not be named
  StallInspector::Findings findings = inspector.check(6.0);
  ASSERT_TRUE(findings.timeout);
  EXPECT_EQ(*findings.timeout,
            "stalled: waited longer than run.stall_timeout_s = 5 for "
            "rank 1 (waiting for its update since 0.0 s, 6.0 s ago); "
            "rank 5 (waiting for its update since 0.5 s, 5.5 s ago) (a worker busy for longer "
            "than that, with long local steps say, is taken for hung: raise "
            "run.stall_timeout_s then)");
  // Never warned before, so this check warns about both as well.
  EXPECT_EQ(findings.warnings.size(), 2u);
}

TEST(StallInspectorTest, NamesWhatItWaitsFor) {
  StallInspector inspector = two_and_five();
  inspector.expect(0, 0.0, "its first pull");
  EXPECT_EQ(*inspector.check(5.0).timeout,
            "stalled: waited longer than run.stall_timeout_s = 5 for "
            "rank 1 (waiting for its first pull since 0.0 s, 5.0 s ago) (a worker busy for "
            "longer than that, with long local steps say, is taken for hung: raise "
            "run.stall_timeout_s then)");
}

TEST(StallInspectorTest, SettleEndsTheWait) {
  StallInspector inspector = two_and_five();
  inspector.expect(1, 0.0);
  inspector.expect(2, 0.0);
  inspector.settle(1);
  StallInspector::Findings findings = inspector.check(100.0);
  ASSERT_TRUE(findings.timeout);
  EXPECT_EQ(findings.timeout->find("rank 2"), std::string::npos) << *findings.timeout;
  EXPECT_NE(findings.timeout->find("rank 3"), std::string::npos) << *findings.timeout;

  inspector.settle(2);
  findings = inspector.check(200.0);
  EXPECT_TRUE(findings.warnings.empty());
  EXPECT_FALSE(findings.timeout);
}

TEST(StallInspectorTest, NextCheckIsTheEarliestWarningOrTimeout) {
  StallInspector inspector = two_and_five();
  EXPECT_EQ(inspector.next_check(), kNever);

  inspector.expect(0, 1.0);
  EXPECT_DOUBLE_EQ(inspector.next_check(), 3.0);  // its warning
  inspector.expect(1, 0.5);
  EXPECT_DOUBLE_EQ(inspector.next_check(), 2.5);  // the other's warning comes first

  inspector.check(2.5);                           // warns about worker 1
  EXPECT_DOUBLE_EQ(inspector.next_check(), 3.0);  // worker 0's warning, before 1's timeout
  inspector.check(3.0);                           // warns about worker 0
  EXPECT_DOUBLE_EQ(inspector.next_check(), 5.5);  // worker 1's timeout

  inspector.settle(1);
  EXPECT_DOUBLE_EQ(inspector.next_check(), 6.0);  // worker 0's timeout
  inspector.settle(0);
  EXPECT_EQ(inspector.next_check(), kNever);
}

TEST(StallInspectorTest, ExpectingAgainAfterSettleRestartsTheWait) {
  StallInspector inspector = two_and_five();
  inspector.expect(0, 0.0);
  ASSERT_EQ(inspector.check(2.0).warnings.size(), 1u);
  inspector.settle(0);

  inspector.expect(0, 10.0);
  EXPECT_DOUBLE_EQ(inspector.next_check(), 12.0);
  EXPECT_TRUE(inspector.check(11.9).warnings.empty());
  StallInspector::Findings findings = inspector.check(12.0);
  ASSERT_EQ(findings.warnings.size(), 1u);  // the new wait is warned about anew
  EXPECT_EQ(findings.warnings[0],
            "slow: rank 1 (waiting for its update since 10.0 s, 2.0 s ago); "
            "run.stall_warning_s = 2");
  EXPECT_FALSE(inspector.check(14.9).timeout);
  EXPECT_TRUE(inspector.check(15.0).timeout);
}

// A worker that waits itself (on MPI, for a server shard's slice of its reply) is not the one
// to blame: the warning and the timeout name what holds it up.
TEST(StallInspectorTest, NamesWhatHoldsUpAWorkerThatSaidSo) {
  StallInspector inspector = two_and_five();
  inspector.expect(0, 0.0);
  inspector.expect(1, 0.0);
  inspector.held_up(0, "shard 1's slice of its last reply");
  inspector.held_up(7, "nothing: no wait for worker 7");  // ignored
  StallInspector::Findings findings = inspector.check(2.0);
  ASSERT_EQ(findings.warnings.size(), 2u);
  EXPECT_EQ(findings.warnings[0],
            "slow: rank 1 (waiting for its update since 0.0 s, 2.0 s ago; the worker itself "
            "waits for shard 1's slice of its last reply); run.stall_warning_s = 2");
  EXPECT_EQ(findings.warnings[1],
            "slow: rank 2 (waiting for its update since 0.0 s, 2.0 s ago); "
            "run.stall_warning_s = 2");
  EXPECT_EQ(inspector.next_check(), 5.0);
  // A worker that waits itself is not busy: the timeout leaves out that a busy one looks hung.
  StallInspector held = two_and_five();
  held.expect(0, 0.0);
  held.held_up(0, "shard 1's slice of its last reply");
  EXPECT_EQ(*held.check(5.0).timeout,
            "stalled: waited longer than run.stall_timeout_s = 5 for rank 1 (waiting for its "
            "update since 0.0 s, 5.0 s ago; the worker itself waits for shard 1's slice of its "
            "last reply)");
  // Cleared when the worker says nothing holds it up any more.
  StallInspector cleared = two_and_five();
  cleared.expect(0, 0.0);
  cleared.held_up(0, "shard 1's slice of its last reply");
  cleared.held_up(0, "");
  EXPECT_EQ(*cleared.check(5.0).timeout,
            "stalled: waited longer than run.stall_timeout_s = 5 for rank 1 (waiting for its "
            "update since 0.0 s, 5.0 s ago) (a worker busy for longer than that, with long local "
            "steps say, is taken for hung: raise run.stall_timeout_s then)");
  // Said once per wait: the next wait of the same worker starts without it.
  inspector.settle(0);
  inspector.expect(0, 1.0);
  inspector.settle(1);
  EXPECT_EQ(*inspector.check(6.0).timeout,
            "stalled: waited longer than run.stall_timeout_s = 5 for rank 1 (waiting for its "
            "update since 1.0 s, 5.0 s ago) (a worker busy for longer than that, with long local "
            "steps say, is taken for hung: raise run.stall_timeout_s then)");
}

}  // namespace
}  // namespace hetps::engine
