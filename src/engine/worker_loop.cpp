#include "engine/worker_loop.h"

#include <algorithm>
#include <exception>
#include <limits>
#include <new>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "engine/engine.h"
#include "worker/merge_updates.h"

namespace hetps::engine {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

// What the server is told of a worker's error: std::bad_alloc's own text names no cause.
std::string failure_text(const std::exception& error) {
  if (dynamic_cast<const std::bad_alloc*>(&error) != nullptr) return "out of memory";
  return error.what();
}

// Trains until the run is over (returns true) or the worker's failure time (false). A leader
// that stops there leaves in `held` the members whose updates it took with it.
bool work(worker::Worker& trainer, const InjectedDelays& delays, WorkerLink& link, double fails_at,
          metrics::WorkerActivity& activity, WorkerLoopState& state, std::vector<int>& held) {
  const int worker = trainer.id();
  // How far this worker's real clock runs behind the cluster model's: a sleep ends late (the OS
  // wakes a thread 50-150 us after its deadline on a busy machine), and counting the next
  // injected delay from the deadline instead of from the wake-up keeps those overshoots from
  // adding up, step after step, into a slower cluster than the configured one. A wait absorbs
  // the lag wherever the model leaves slack (padding, link transfers).
  double lag = 0;
  const auto modeled_now = [&] { return link.now() - lag; };
  // Each wait ends at the failure time at the latest: a failing worker stops where it is.
  // Returns nothing when the worker goes on, else what `work` returns.
  const auto wait_until = [&](double seconds) -> std::optional<bool> {
    const double modeled_end = std::max(modeled_now(), seconds);
    if (!link.sleep_until(std::min(seconds, fails_at))) return true;
    if (link.now() >= fails_at) return false;
    lag = std::max(0.0, link.now() - modeled_end);
    return std::nullopt;
  };
  // After a wait for a message came back empty.
  const auto nothing_came = [&]() -> std::optional<bool> {
    if (link.run_over()) return true;
    if (link.now() < fails_at) return std::nullopt;  // the clock stood still (an evaluation)
    return false;
  };
  // Members announced dead: an update of theirs may still come after the notice (on mpi the
  // two travel from different senders), and is then dropped.
  std::set<int> announced_gone;
  // A leader's round: every member's update (or death), merged into the leader's own.
  const auto gather = [&](const protocol::WorkerPlan& plan, protocol::UpdateInfo& info,
                          std::span<float> update) -> std::optional<bool> {
    std::vector<int> awaited = plan.gather_from;
    std::vector<worker::Contribution> contributions = {{info, update.data()}};
    while (!awaited.empty()) {
      std::optional<MemberMessage> message = link.receive_from_member(fails_at);
      if (!message) {
        if (const auto ended = nothing_came()) return ended;
        continue;
      }
      if (message->gone) announced_gone.insert(message->member);
      const auto it = std::ranges::find(awaited, message->member);
      if (it == awaited.end()) {
        // A death after the member's update arrived, or an update after its death notice.
        if (message->gone || announced_gone.contains(message->member)) continue;
        throw std::logic_error(
            fmt::format("worker {} got an update from worker {}, which it "
                        "does not gather from",
                        worker, message->member));
      }
      awaited.erase(it);
      if (message->gone) continue;
      held.push_back(message->member);
      if (const auto ended = wait_until(message->arrives)) return ended;
      contributions.push_back({message->info, message->update.data()});
    }
    info = worker::merge_updates(contributions, update);
    return std::nullopt;
  };

  if (!state.resumed) link.ask_first_pull();
  for (;;) {
    std::optional<PulledModel> reply = link.receive(fails_at);
    if (!reply) {
      if (const auto ended = nothing_came()) return *ended;
      continue;
    }
    activity.begin_cycle();
    activity.record(metrics::Activity::kCommunicate, reply->arrives - reply->pull_seconds,
                    reply->arrives);
    if (const auto ended = wait_until(reply->arrives)) return *ended;

    const double started = modeled_now();
    const worker::RoundResult result =
        trainer.run(reply->plan, reply->model, reply->lr, reply->update);
    reply->snapshot.reset();  // the snapshot's buffer may be reused once every reader is done
    const double computed =
        std::max(modeled_now(), delays.compute_end(worker, started, result.steps));
    activity.record(metrics::Activity::kCompute, started, computed);
    if (const auto ended = wait_until(computed)) return *ended;

    protocol::UpdateInfo info;
    info.id = reply->update_id;
    info.worker = worker;
    info.kind = reply->plan.kind;
    info.base_version = reply->version;
    info.clock = ++state.pushes;
    info.steps = result.steps;
    info.samples = result.samples;
    info.train_loss = result.mean_loss;
    info.compute_seconds = computed - started;
    const int leader = reply->plan.send_to;
    if (leader == protocol::kServer && !reply->plan.gather_from.empty()) {
      link.report_progress(info, RoundProgress::kGathering);
      if (const auto ended = gather(reply->plan, info, reply->update)) return *ended;
    }

    const worker::SparseDelta* sparse = result.sparse ? &*result.sparse : nullptr;
    const double pushed = modeled_now();
    const double arrives = leader == protocol::kServer ? link.push_arrival(pushed, sparse)
                                                       : link.member_push_arrival(leader, pushed);
    activity.record(metrics::Activity::kCommunicate, pushed, arrives);
    if (const auto ended = wait_until(arrives)) return *ended;
    info.push_seconds = (arrives - pushed) + reply->previous_push_seconds;
    info.pull_seconds = reply->pull_seconds;
    info.comm_seconds = info.push_seconds + info.pull_seconds;
    if (leader == protocol::kServer) {
      link.push(info, reply->update, sparse);
    } else {
      link.report_progress(info, RoundProgress::kWithLeader);
      link.send_to_leader(leader, info, reply->update);
    }
    held.clear();
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
                const config::WorkerFailure* failure, metrics::WorkerActivity& activity,
                WorkerLoopState& state) {
  std::vector<int> held;
  try {
    if (work(trainer, delays, link, failure ? failure->time : kNever, activity, state, held)) {
      return;
    }
    activity.stop_at(failure->time);
    if (failure->kind == "crash") {
      link.report_gone("", held);
      return;
    }
    // A hang: silent until the run ends, as a stuck process would be.
    link.wait_for_end();
  } catch (const ServerSilent&) {
    throw;  // nothing can be reported to a server taken for hung
  } catch (const std::exception& error) {
    activity.stop_at(link.now());
    link.report_gone(failure_text(error), held);
  }
}

}  // namespace hetps::engine
