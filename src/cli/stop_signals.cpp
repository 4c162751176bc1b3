#include "cli/stop_signals.h"

#include <csignal>
#include <stdexcept>

namespace hetps::cli {
namespace {

// Written by the handler: lock-free atomics are what a handler may touch.
std::atomic<bool> stop_requested{false};
std::atomic<int> stop_signal{0};
std::atomic<bool> installed{false};
struct sigaction previous_interrupt;
struct sigaction previous_terminate;

static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

extern "C" void request_stop(int signal) {
  stop_signal.store(signal);
  stop_requested.store(true);
}

// Takes `signal` for `action`, keeping what it did before in `previous`, unless the process was
// started with it ignored: a shell without job control (a script) starts a job it runs in the
// background so, for Ctrl-C to reach the foreground job alone, and a tool keeps it ignored (as
// Python does).
void take_unless_ignored(int signal, const struct sigaction& action, struct sigaction& previous) {
  sigaction(signal, nullptr, &previous);
  if (previous.sa_handler != SIG_IGN) sigaction(signal, &action, nullptr);
}

}  // namespace

StopSignals::StopSignals() {
  if (installed.exchange(true)) throw std::logic_error("StopSignals: already installed");
  stop_requested.store(false);
  stop_signal.store(0);
  struct sigaction action = {};
  action.sa_handler = request_stop;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND | SA_RESTART;  // a second signal takes its default action
  take_unless_ignored(SIGINT, action, previous_interrupt);
  take_unless_ignored(SIGTERM, action, previous_terminate);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &previous_interrupt, nullptr);
  sigaction(SIGTERM, &previous_terminate, nullptr);
  installed.store(false);
}

const std::atomic<bool>& StopSignals::requested() const { return stop_requested; }

const char* StopSignals::signal_name() const {
  switch (stop_signal.load()) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "";
  }
}

}  // namespace hetps::cli
