// Wake-ups on time for the calling thread while this object lives. Linux lets a sleeping thread
// wake up to its "timer slack" (50 us by default) after its deadline, to batch wake-ups; the
// threads engine injects delays of about a millisecond by sleeping, so that slack alone would
// slow the configured cluster down by several percent. Elsewhere it does nothing.
#pragma once

namespace hetps::engine {

class PreciseWakeups {
 public:
  PreciseWakeups();
  ~PreciseWakeups();
  PreciseWakeups(const PreciseWakeups&) = delete;
  PreciseWakeups& operator=(const PreciseWakeups&) = delete;

 private:
  long saved_slack_ns_ = -1;  // -1: nothing to restore
};

}  // namespace hetps::engine
