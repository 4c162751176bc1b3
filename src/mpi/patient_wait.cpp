#include "mpi/patient_wait.h"

#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "engine/engine.h"

namespace hetps::mpi {
namespace {

constexpr std::chrono::microseconds kLongestPause{1000};

}  // namespace

void Backoff::pause(double at_most_seconds) {
  const auto at_most = std::chrono::duration<double>(std::max(at_most_seconds, 0.0));
  if (at_most < interval_) {
    std::this_thread::sleep_for(at_most);
  } else {
    std::this_thread::sleep_for(interval_);
  }
  interval_ = std::min(interval_ + interval_ / 10, kLongestPause);
}

void wait_for(MPI_Request& request) { wait_for_all(std::span<MPI_Request>(&request, 1)); }

void wait_for_all(std::span<MPI_Request> requests) {
  Backoff backoff;
  for (;;) {
    int done = 0;
    MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
    if (done) return;
    backoff.pause();
  }
}

std::optional<MPI_Status> probe(MPI_Comm comm, int source, int tag) {
  int waiting = 0;
  MPI_Status status;
  MPI_Iprobe(source, tag, comm, &waiting, &status);
  if (!waiting) return std::nullopt;
  return status;
}

namespace {

[[noreturn]] void give_up(Patience patience, const std::function<std::string()>& what) {
  throw engine::StallError(fmt::format("stalled: waited longer than {} = {} for {}",
                                       patience.setting, patience.seconds, what()));
}

}  // namespace

void wait_for(MPI_Request& request, Patience patience, const std::function<std::string()>& what) {
  const double give_up_at = MPI_Wtime() + patience.seconds;
  Backoff backoff;
  for (;;) {
    int done = 0;
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    const double left = give_up_at - MPI_Wtime();
    if (left <= 0) give_up(patience, what);
    backoff.pause(left);
  }
}

MPI_Status wait_for_message(MPI_Comm comm, int source, int tag, Patience patience,
                            const std::function<std::string()>& what) {
  const double give_up_at = MPI_Wtime() + patience.seconds;
  Backoff backoff;
  for (;;) {
    if (const auto status = probe(comm, source, tag)) return *status;
    const double left = give_up_at - MPI_Wtime();
    if (left <= 0) give_up(patience, what);
    backoff.pause(left);
  }
}

MPI_Status wait_for_message(MPI_Comm comm, int source, int tag) {
  Backoff backoff;
  for (;;) {
    if (const auto status = probe(comm, source, tag)) return *status;
    backoff.pause();
  }
}

}  // namespace hetps::mpi
