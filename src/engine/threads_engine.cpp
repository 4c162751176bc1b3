#include "engine/threads_engine.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "engine/worker_factory.h"

namespace hetps::engine {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();
// A deadline far enough to mean "never" without overflowing the clock's arithmetic.
constexpr double kFarFuture = 1e7;

std::vector<double> shard_fractions(const server::ParameterServer& server) {
  std::vector<double> fractions;
  const double total = static_cast<double>(server.model().size());
  for (const auto& range : server.shard_ranges()) {
    fractions.push_back(static_cast<double>(range.size()) / total);
  }
  return fractions;
}

const config::WorkerFailure* failure_of(const config::ClusterConfig& cluster, int worker) {
  for (const auto& failure : cluster.failures) {
    if (failure.worker == worker) return &failure;
  }
  return nullptr;
}

}  // namespace

ThreadsEngine::ThreadsEngine(const config::Config& config, const data::DataSplit& data,
                             const ModelSource& models, RunListener& listener)
    : config_(config),
      data_(data),
      models_(models),
      evaluator_(models.make_learner()),
      state_(config, data, *evaluator_, listener),
      delays_(config.cluster, config.seed, static_cast<double>(state_.model_bytes()),
              shard_fractions(state_.server())),
      inspector_(config.run.stall_warning_s, config.run.stall_timeout_s, [](int worker) {
        return fmt::format("worker {} (a thread of this process)", worker);
      }) {
  const int workers = config.cluster.workers;
  for (int w = 0; w < workers; ++w) {
    learners_.push_back(models.make_learner());
    workers_.push_back(make_worker(config, data.train, w, *learners_.back()));
    mailboxes_.push_back(std::make_unique<Mailbox<PullReply>>());
  }
  outstanding_.assign(static_cast<size_t>(workers), -1);
  dead_.assign(static_cast<size_t>(workers), false);
}

ThreadsEngine::~ThreadsEngine() { stop_workers(); }

double ThreadsEngine::now() const {
  const Clock::duration paused(paused_.load());
  return std::chrono::duration<double>(Clock::now() - start_ - paused).count();
}

ThreadsEngine::Clock::time_point ThreadsEngine::clock_at(double seconds) const {
  const Clock::duration paused(paused_.load());
  return start_ + paused +
         std::chrono::duration_cast<Clock::duration>(
             std::chrono::duration<double>(std::min(seconds, kFarFuture)));
}

void ThreadsEngine::evaluate_paused(double time) {
  gate_.pause();
  const auto begin = Clock::now();
  state_.evaluate(time);
  paused_ += (Clock::now() - begin).count();
  gate_.resume();
}

void ThreadsEngine::calibrate(const ModelSource& models) {
  if (!delays_.pads_any_compute()) return;
  // A throwaway worker on its own model: the run's workers keep their batches untouched.
  auto learner = models.make_learner();
  auto probe = make_worker(config_, data_.train, 0, *learner);
  std::vector<float> model(learner->layout().size());
  std::vector<float> update(model.size());
  learner->initial_parameters(model);
  constexpr int kWarmUp = 3;
  constexpr int kTimed = 11;
  std::vector<double> seconds;
  for (int step = 0; step < kWarmUp + kTimed; ++step) {
    const auto begin = Clock::now();
    probe->run(protocol::WorkerPlan{}, model, 0.0, update);
    if (step >= kWarmUp)
      seconds.push_back(std::chrono::duration<double>(Clock::now() - begin).count());
  }
  std::nth_element(seconds.begin(), seconds.begin() + kTimed / 2, seconds.end());
  const double step_seconds = seconds[kTimed / 2];
  delays_.set_calibrated_step(step_seconds);
  state_.record({"calibration",
                 {{"step_seconds", step_seconds},
                  {"flops_per_step", learner->flops_per_sample() * config_.data.batch_size}}},
                0.0);
}

metrics::Summary ThreadsEngine::run() {
  const auto wall_start = Clock::now();
  const int workers = config_.cluster.workers;
  if (models_.set_compute_threads) models_.set_compute_threads(config_.run.threads_per_worker);
  calibrate(models_);
  const unsigned cores = std::thread::hardware_concurrency();
  if (cores > 0 && static_cast<unsigned>(workers) > cores) {
    state_.record({"warning",
                   {{"message", fmt::format("{} worker threads share {} cores: the injected "
                                            "heterogeneity is only approximate",
                                            workers, cores)}}},
                  0.0);
  }

  start_ = Clock::now();
  state_.protocol().start(
      protocol::RunShape{workers, config_.train.max_samples, config_.data.batch_size}, *this);
  state_.evaluate(0.0);
  for (int w = 0; w < workers; ++w) threads_.emplace_back([this, w] { worker_main(w); });

  double next_evaluation = config_.train.eval_interval;
  std::string stop_reason;
  for (;;) {
    const double wake =
        std::min({next_evaluation, inspector_.next_check(), config_.train.max_time});
    if (auto message = inbox_.pop_until(clock_at(wake))) serve(*message);
    const double time = now();
    if (time >= config_.train.max_time) {
      stop_reason = "max_time";
      break;
    }
    if (state_.budget_spent()) {
      stop_reason = "max_samples";
      break;
    }
    if (time >= next_evaluation) {
      evaluate_paused(time);
      if (config_.train.stop_at_target && state_.target_reached()) {
        stop_reason = "target";
        break;
      }
      next_evaluation = time + config_.train.eval_interval;
    }
    check_stalls(time);
    if (std::find(dead_.begin(), dead_.end(), false) == dead_.end()) {
      stop_reason = "stalled";  // every worker is gone
      break;
    }
  }
  stop_workers();
  return state_.finish(now(), stop_reason, "threads", wall_start);
}

void ThreadsEngine::serve(const ServerMessage& message) {
  if (const auto* pull = std::get_if<FirstPull>(&message)) {
    state_.protocol().on_pull_request(pull->worker, *this);
    return;
  }
  if (const auto* gone = std::get_if<WorkerGone>(&message)) {
    on_worker_gone(*gone);
    return;
  }
  protocol::UpdateInfo info = std::get<UpdateReady>(message).info;
  info.now = now();
  const auto w = static_cast<size_t>(info.worker);
  outstanding_[w] = -1;
  inspector_.settle(info.worker);
  state_.pool().at(info.id).info = info;
  state_.stats().add_bytes_to_server(state_.model_bytes());
  state_.protocol().on_update(info, *this);
  state_.protocol().on_pull_request(info.worker, *this);
}

void ThreadsEngine::on_worker_gone(const WorkerGone& gone) {
  if (!gone.error.empty()) {
    throw std::runtime_error(fmt::format("worker {} failed: {}", gone.worker, gone.error));
  }
  const auto w = static_cast<size_t>(gone.worker);
  dead_[w] = true;
  inspector_.settle(gone.worker);
  if (outstanding_[w] >= 0) state_.discard(outstanding_[w]);
  outstanding_[w] = -1;
  state_.record({"worker_failed", {{"worker", gone.worker}, {"kind", "crash"}}}, now());
  state_.protocol().on_worker_failed(gone.worker, *this);
}

void ThreadsEngine::check_stalls(double time) {
  StallInspector::Findings findings = inspector_.check(time);
  for (const std::string& warning : findings.warnings) {
    state_.record({"stall_warning", {{"message", warning}}}, time);
  }
  if (findings.timeout) {
    state_.record({"stalled", {{"message", *findings.timeout}}}, time);
    throw StallError(*findings.timeout);
  }
}

void ThreadsEngine::reply_pull(int worker, const protocol::WorkerPlan& plan) {
  if (plan.send_to != protocol::kServer || plan.keep_ratio != 1.0) {
    throw std::logic_error(
        "the threads engine does not yet carry updates to leaders or compress them");
  }
  const auto w = static_cast<size_t>(worker);
  if (dead_[w]) return;
  const int id = state_.pool().acquire();
  const double sent = now();
  PullReply reply{plan,
                  snapshots_.at(state_.server().model(), state_.server().version()),
                  state_.server().version(),
                  id,
                  state_.pool().buffer(id),
                  state_.current_lr(),
                  sent,
                  delays_.pull_arrival(worker, sent)};
  state_.stats().add_bytes_from_server(state_.model_bytes());
  outstanding_[w] = id;
  inspector_.expect(worker, sent);
  mailboxes_[w]->push(std::move(reply));
}

void ThreadsEngine::worker_main(int worker) {
  try {
    if (models_.set_compute_threads) models_.set_compute_threads(config_.run.threads_per_worker);
    const config::WorkerFailure* failure = failure_of(config_.cluster, worker);
    if (work(worker, failure ? failure->time : kNever)) return;
    if (failure->kind == "crash") {
      inbox_.push(WorkerGone{worker, ""});
      return;
    }
    // A hang: silent until the run ends, as a stuck process would be.
    while (gate_.sleep_until(clock_at(kFarFuture))) {
    }
  } catch (const std::exception& error) {
    inbox_.push(WorkerGone{worker, error.what()});
  }
}

bool ThreadsEngine::work(int worker, double fails_at) {
  const auto w = static_cast<size_t>(worker);
  worker::Worker& trainer = *workers_[w];
  int64_t pushes = 0;
  inbox_.push(FirstPull{worker});
  for (;;) {
    std::optional<PullReply> reply = mailboxes_[w]->pop_until(clock_at(fails_at));
    if (!reply) {
      if (gate_.stopped()) return true;
      if (now() < fails_at) continue;  // a pause moved the failure time on
      return false;
    }
    if (!sleep_until(std::min(reply->arrives, fails_at))) return true;
    if (now() >= fails_at) return false;

    const double started = now();
    const worker::RoundResult result =
        trainer.run(reply->plan, *reply->model, reply->lr, reply->update);
    reply->model.reset();  // the snapshot's buffer may be reused once every reader is done
    const double computed = std::max(now(), delays_.compute_end(worker, started, result.steps));
    if (!sleep_until(std::min(computed, fails_at))) return true;
    if (now() >= fails_at) return false;

    const double pushed = now();
    const double arrives = delays_.push_arrival(worker, pushed);
    if (!sleep_until(std::min(arrives, fails_at))) return true;
    if (now() >= fails_at) return false;

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
    info.comm_seconds = (arrives - pushed) + (reply->arrives - reply->sent);
    inbox_.push(UpdateReady{info});
  }
}

bool ThreadsEngine::sleep_until(double seconds) {
  do {
    if (!gate_.sleep_until(clock_at(seconds))) return false;
  } while (now() < seconds);
  return true;
}

void ThreadsEngine::stop_workers() {
  gate_.stop();
  for (auto& mailbox : mailboxes_) mailbox->close();
  for (std::thread& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
  threads_.clear();
}

}  // namespace hetps::engine
