#include "cli/stop_signals.h"

#include <csignal>
#include <cstdint>
#include <ctime>
#include <stdexcept>

#include <signal.h>
#include <sys/types.h>

namespace hetps::cli {
namespace {

// Written by the handler: lock-free atomics are what a handler may touch.
std::atomic<bool> stop_requested{false};
std::atomic<int> stop_signal{0};
std::atomic<bool> installed{false};
struct sigaction previous_interrupt;
struct sigaction previous_terminate;

static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

// Who sent the first signal (its pid, or 0 for the kernel: a Ctrl-C at the terminal) and when
// (CLOCK_MONOTONIC, nanoseconds).
std::atomic<pid_t> first_sender{0};
std::atomic<int64_t> first_at_ns{0};
constexpr int64_t kSameRequestNs = 1'000'000'000;

static_assert(std::atomic<pid_t>::is_always_lock_free && std::atomic<int64_t>::is_always_lock_free);

int64_t monotonic_ns() {
  struct timespec now = {};
  clock_gettime(CLOCK_MONOTONIC, &now);  // async-signal-safe
  return static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

pid_t sender_of(const siginfo_t* info) {
  return info != nullptr && info->si_code == SI_USER ? info->si_pid : 0;
}

// A second signal is the same request when a process sent both within a second: coreutils'
// `timeout` signals its child and then the child's process group, so a run it bounds gets two
// at once. Any other second one (Ctrl-C twice) takes the signal's default action.
extern "C" void request_stop(int signal, siginfo_t* info, void* /*context*/) {
  const pid_t sender = sender_of(info);
  const int64_t now = monotonic_ns();
  if (!stop_requested.load()) {
    first_sender.store(sender);
    first_at_ns.store(now);
    stop_signal.store(signal);
    stop_requested.store(true);
    return;
  }
  if (sender != 0 && sender == first_sender.load() && now - first_at_ns.load() < kSameRequestNs) {
    return;
  }
  struct sigaction default_action = {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  sigaction(signal, &default_action, nullptr);
  raise(signal);  // blocked in its own handler: delivered, with its default action, on return
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
  first_sender.store(0);
  first_at_ns.store(0);
  struct sigaction action = {};
  action.sa_sigaction = request_stop;
  // SIGINT and SIGTERM held while either is handled, so that one handler runs at a time.
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, SIGINT);
  sigaddset(&action.sa_mask, SIGTERM);
  action.sa_flags = SA_SIGINFO | SA_RESTART;
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
