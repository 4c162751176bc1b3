#include "engine/precise_wakeups.h"

#ifdef __linux__
#include <sys/prctl.h>
#endif

namespace hetps::engine {

PreciseWakeups::PreciseWakeups() {
#ifdef __linux__
  const int slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  // The smallest slack the kernel takes; 0 would mean "back to the default".
  if (slack >= 0 && prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0) == 0) saved_slack_ns_ = slack;
#endif
}

PreciseWakeups::~PreciseWakeups() {
#ifdef __linux__
  if (saved_slack_ns_ >= 0)
    prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(saved_slack_ns_), 0, 0, 0);
#endif
}

}  // namespace hetps::engine
