#include "cli/stop_signals.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace hetps::cli {
namespace {

// The disposition of `signal` now.
void (*disposition(int signal))(int) {
  struct sigaction current = {};
  sigaction(signal, nullptr, &current);
  return current.sa_handler;
}

// SIGINT and SIGTERM at their default for a test's length, whatever the test binary was started
// with (a script's background job starts with SIGINT ignored).
class DefaultStopSignals {
 public:
  DefaultStopSignals() {
    struct sigaction default_action = {};
    default_action.sa_handler = SIG_DFL;
    sigemptyset(&default_action.sa_mask);
    sigaction(SIGINT, &default_action, &interrupt_);
    sigaction(SIGTERM, &default_action, &terminate_);
  }
  ~DefaultStopSignals() {
    sigaction(SIGINT, &interrupt_, nullptr);
    sigaction(SIGTERM, &terminate_, nullptr);
  }
  DefaultStopSignals(const DefaultStopSignals&) = delete;
  DefaultStopSignals& operator=(const DefaultStopSignals&) = delete;

 private:
  struct sigaction interrupt_ = {};
  struct sigaction terminate_ = {};
};

TEST(StopSignals, ASignalAsksForAStopAndIsNamed) {
  const DefaultStopSignals defaults;
  const StopSignals signals;
  EXPECT_FALSE(signals.requested());
  ASSERT_EQ(raise(SIGTERM), 0);
  EXPECT_TRUE(signals.requested());
  EXPECT_STREQ(signals.signal_name(), "SIGTERM");
}

// A shell without job control (a script) starts a job it runs in the background with SIGINT
// ignored, so that Ctrl-C reaches the foreground job alone: such a run goes on through SIGINT
// and still stops on SIGTERM.
TEST(StopSignals, ASignalTheProcessStartedWithIgnoredStaysIgnored) {
  const DefaultStopSignals defaults;
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

// The tests below end their process: each runs in a child of its own.
class StopSignalsDeathTest : public ::testing::Test {
 protected:
  // Started afresh, not forked: this binary runs libtorch's threads.
  StopSignalsDeathTest() { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

// `timeout -s INT 60 hetps train ...` signals its child and then the child's process group: the
// run gets two signals from one process at once, which ask for one stop.
TEST_F(StopSignalsDeathTest, TwoSignalsOneProcessSentWithinASecondAreOneRequest) {
  EXPECT_EXIT(
      {
        const DefaultStopSignals defaults;
        const StopSignals signals;
        kill(getpid(), SIGTERM);
        kill(getpid(), SIGTERM);
        _exit(signals.requested() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

// Ctrl-C twice: the second comes from the kernel, as a raise() does not come from kill(2).
TEST_F(StopSignalsDeathTest, ASecondSignalNotFromTheFirstsSenderEndsTheProcess) {
  EXPECT_EXIT(
      {
        const DefaultStopSignals defaults;
        const StopSignals signals;
        kill(getpid(), SIGINT);
        raise(SIGINT);
        _exit(0);
      },
      ::testing::KilledBySignal(SIGINT), "");
}

TEST_F(StopSignalsDeathTest, TheSameSendersSecondSignalAfterASecondEndsTheProcess) {
  EXPECT_EXIT(
      {
        const DefaultStopSignals defaults;
        const StopSignals signals;
        kill(getpid(), SIGTERM);
        std::this_thread::sleep_for(std::chrono::milliseconds(1100));
        kill(getpid(), SIGTERM);
        _exit(0);
      },
      ::testing::KilledBySignal(SIGTERM), "");
}

TEST(StopSignals, TheHandlersBeforeComeBackWhenItEnds) {
  const DefaultStopSignals defaults;
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
