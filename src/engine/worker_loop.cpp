#include "engine/worker_loop.h"

#include <algorithm>
#include <exception>
#include <limits>
#include <optional>

namespace hetps::engine {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

// Trains until the run is over (returns true) or the worker's failure time (false).
bool work(worker::Worker& trainer, const InjectedDelays& delays, WorkerLink& link,
          double fails_at) {
  const int worker = trainer.id();
  int64_t pushes = 0;
  // Each wait ends at the failure time at the latest: a failing worker stops where it is.
  // Returns nothing when the worker goes on, else what `work` returns.
  const auto wait_until = [&](double seconds) -> std::optional<bool> {
    if (!link.sleep_until(std::min(seconds, fails_at))) return true;
    if (link.now() >= fails_at) return false;
    return std::nullopt;
  };
  link.ask_first_pull();
  for (;;) {
    std::optional<PulledModel> reply = link.receive(fails_at);
    if (!reply) {
      if (link.run_over()) return true;
      if (link.now() < fails_at) continue;  // the clock stood still (an evaluation pause)
      return false;
    }
    if (const auto ended = wait_until(reply->arrives)) return *ended;

    const double started = link.now();
    const worker::RoundResult result =
        trainer.run(reply->plan, reply->model, reply->lr, reply->update);
    reply->snapshot.reset();  // the snapshot's buffer may be reused once every reader is done
    const double computed = std::max(link.now(), delays.compute_end(worker, started, result.steps));
    if (const auto ended = wait_until(computed)) return *ended;

    const double pushed = link.now();
    const double arrives = link.push_arrival(pushed);
    if (const auto ended = wait_until(arrives)) return *ended;

    protocol::UpdateInfo info;
    info.id = reply->update_id;
    info.worker = worker;
    info.kind = reply->plan.kind;
    info.base_version = reply->version;
    info.clock = ++pushes;
    info.steps = result.steps;
    info.samples = result.samples;
    info.train_loss = result.mean_loss;
    info.compute_seconds = computed - started;
    info.comm_seconds = (arrives - pushed) + reply->transfer_seconds;
    link.push(info, reply->update);
  }
}

}  // namespace

const config::WorkerFailure* failure_of(const config::ClusterConfig& cluster, int worker) {
  for (const auto& failure : cluster.failures) {
    if (failure.worker == worker) return &failure;
  }
  return nullptr;
}

void run_worker(worker::Worker& trainer, const InjectedDelays& delays, WorkerLink& link,
                const config::WorkerFailure* failure) {
  try {
    if (work(trainer, delays, link, failure ? failure->time : kNever)) return;
    if (failure->kind == "crash") {
      link.report_gone("");
      return;
    }
    // A hang: silent until the run ends, as a stuck process would be.
    link.wait_for_end();
  } catch (const std::exception& error) {
    link.report_gone(error.what());
  }
}

}  // namespace hetps::engine
