// Waiting without burning a core. OpenMPI's blocking calls spin on their requests: on a host
// with more ranks than cores a rank that waits takes the core a worker computes on. hetps
// waits with MPI_Test / MPI_Iprobe between short sleeps instead: the first 20 µs (a message is
// often that close), each next one 10% longer, up to 1 ms. A message is then noticed at most
// about 10% of the wait later (doubling would allow 100%: measured, BSP with two MLP workers
// ran 20% slower), and an idle rank wakes about a thousand times a second, which costs next to
// nothing. Those lengths hold only with the timer slack at its minimum (engine::PreciseWakeups,
// which the mpi engine's run holds): by default Linux lets a sleep overrun by up to 50 µs.
#pragma once

#include <mpi.h>

#include <chrono>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "config/config.h"

namespace hetps::mpi {

class Backoff {
 public:
  // Sleeps the current interval, or `at_most_seconds` if that is shorter, and lengthens the
  // interval by 10% for the next pause.
  void pause(double at_most_seconds = std::numeric_limits<double>::infinity());

 private:
  std::chrono::microseconds interval_{20};
};

void wait_for(MPI_Request& request);
void wait_for_all(std::span<MPI_Request> requests);

// The status of a message from `source` with `tag` that waits to be received, if any
// (MPI_ANY_SOURCE and MPI_ANY_TAG allowed).
std::optional<MPI_Status> probe(MPI_Comm comm, int source, int tag);
// Waits for such a message: for one that is known to follow another already taken.
MPI_Status wait_for_message(MPI_Comm comm, int source, int tag);

// How long a wait may last, and the setting that says so, which its StallError names: the waits
// before training have `run.start_timeout_s` (the ranks of one job may start seconds apart,
// whatever the stall timeout of the training), those during and after it `run.stall_timeout_s`.
struct Patience {
  // NOLINTNEXTLINE(google-explicit-constructor): a plain number is a stall timeout.
  Patience(double seconds, std::string_view setting = "run.stall_timeout_s")
      : seconds(seconds), setting(setting) {}
  static Patience before_training(const config::RunConfig& run) {
    return {run.start_timeout_s, "run.start_timeout_s"};
  }

  double seconds;
  std::string_view setting;
};

// The same waits, given up `patience` from now with a StallError that names what was awaited
// (`what()`) ("stalled: waited longer than run.stall_timeout_s = ... for <what>"). For waits
// that hold up a rank whose own stall inspector is not running.
void wait_for(MPI_Request& request, Patience patience, const std::function<std::string()>& what);
MPI_Status wait_for_message(MPI_Comm comm, int source, int tag, Patience patience,
                            const std::function<std::string()>& what);

}  // namespace hetps::mpi
