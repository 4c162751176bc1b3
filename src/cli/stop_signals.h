// SIGINT and SIGTERM ask a run to stop with a checkpoint rather than kill it: the first one
// sets a flag the engine watches between events; a second one, the signal's default action
// (the process ends at once, as a user pressing Ctrl-C twice expects), unless the process that
// sent the first sent it within a second (`timeout -s INT 60 hetps train ...` signals twice at
// once). A signal the process was started with ignored (SIGINT, for a job a script runs in the
// background) stays ignored.
#pragma once

#include <atomic>

namespace hetps::cli {

class StopSignals {
 public:
  // Installs the handlers; the destructor puts back the ones before. One at a time.
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  const std::atomic<bool>& requested() const;
  // The signal that set the flag ("SIGINT", "SIGTERM"); empty while none has.
  const char* signal_name() const;
};

}  // namespace hetps::cli
