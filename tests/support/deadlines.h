// Deadlines for tests of waits that take one (Mailbox::pop_until, RunGate::sleep_until).
#pragma once

#include <chrono>

namespace hetps::testing {

// Far enough that a waiter woken by it instead of by the event under test hangs the suite
// (ctest's timeout reports it) rather than passing.
inline std::chrono::steady_clock::time_point far_deadline() {
  return std::chrono::steady_clock::now() + std::chrono::hours(1);
}

inline std::chrono::steady_clock::time_point past_deadline() {
  return std::chrono::steady_clock::now() - std::chrono::seconds(1);
}

}  // namespace hetps::testing
