#include "cli/stop_signals.h"

#include <gtest/gtest.h>

#include <signal.h>

namespace hetps::cli {
namespace {

// The disposition of `signal` now.
void (*disposition(int signal))(int) {
  struct sigaction current = {};
  sigaction(signal, nullptr, &current);
  return current.sa_handler;
}

TEST(StopSignals, ASignalAsksForAStopAndIsNamed) {
  const StopSignals signals;
  EXPECT_FALSE(signals.requested());
  ASSERT_EQ(raise(SIGTERM), 0);
  EXPECT_TRUE(signals.requested());
  EXPECT_STREQ(signals.signal_name(), "SIGTERM");
}

// A shell starts a job it runs in the background with SIGINT ignored, so that Ctrl-C reaches the
// foreground job alone: such a run goes on through SIGINT and still stops on SIGTERM.
TEST(StopSignals, ASignalTheProcessStartedWithIgnoredStaysIgnored) {
  struct sigaction ignore = {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  struct sigaction before = {};
  sigaction(SIGINT, &ignore, &before);
  {
    const StopSignals signals;
    EXPECT_EQ(disposition(SIGINT), SIG_IGN);
    ASSERT_EQ(raise(SIGINT), 0);
    EXPECT_FALSE(signals.requested());
    ASSERT_EQ(raise(SIGTERM), 0);
    EXPECT_TRUE(signals.requested());
    EXPECT_STREQ(signals.signal_name(), "SIGTERM");
  }
  EXPECT_EQ(disposition(SIGINT), SIG_IGN);
  sigaction(SIGINT, &before, nullptr);
}

TEST(StopSignals, TheHandlersBeforeComeBackWhenItEnds) {
  const auto interrupt_before = disposition(SIGINT);
  const auto terminate_before = disposition(SIGTERM);
  {
    const StopSignals signals;
    EXPECT_NE(disposition(SIGINT), interrupt_before);
    EXPECT_NE(disposition(SIGTERM), terminate_before);
  }
  EXPECT_EQ(disposition(SIGINT), interrupt_before);
  EXPECT_EQ(disposition(SIGTERM), terminate_before);
}

}  // namespace
}  // namespace hetps::cli
