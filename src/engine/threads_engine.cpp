#include "engine/threads_engine.h"

#include <algorithm>

#include <fmt/format.h>

#include "engine/precise_wakeups.h"
#include "engine/run_timeline.h"
#include "engine/sparse_push.h"
#include "engine/step_calibration.h"
#include "engine/worker_factory.h"
#include "engine/worker_loop.h"

namespace hetps::engine {
namespace {

// A deadline far enough to mean "never" without overflowing the clock's arithmetic.
constexpr double kFarFuture = 1e7;

}  // namespace

class ThreadsEngine::Link : public WorkerLink {
 public:
  Link(ThreadsEngine& engine, int worker) : engine_(engine), worker_(worker) {}

  double now() const override { return engine_.now(); }
  void ask_first_pull() override { engine_.inbox_.push(FirstPull{worker_}); }
  std::optional<PulledModel> receive(double deadline) override {
    std::optional<PullReply> pulled =
        engine_.mailboxes_[static_cast<size_t>(worker_)]->pop_until(engine_.clock_at(deadline));
    if (!pulled) return std::nullopt;
    const ServerLoop::Reply& reply = pulled->reply;
    return PulledModel{.plan = reply.plan,
                       .model = *reply.model,
                       .snapshot = reply.model,
                       .version = reply.version,
                       .update_id = reply.update_id,
                       .update = reply.update,
                       .lr = reply.lr,
                       .arrives = pulled->arrives,
                       .pull_seconds = pulled->arrives - reply.sent};
  }
  std::optional<MemberMessage> receive_from_member(double deadline) override {
    return engine_.member_mailboxes_[static_cast<size_t>(worker_)]->pop_until(
        engine_.clock_at(deadline));
  }
  bool run_over() override { return engine_.gate_.stopped(); }
  bool sleep_until(double seconds) override { return engine_.sleep_until(seconds); }
  double push_arrival(double sent, const worker::SparseDelta* sparse) override {
    return engine_.delays_.push_arrival(worker_, sent, sparse);
  }
  double member_push_arrival(int leader, double sent) override {
    return engine_.delays_.worker_arrival(worker_, leader, sent);
  }
  // The update is already in the server's pool buffer, a compressed one expanded there.
  void push(const protocol::UpdateInfo& info, std::span<const float> update,
            const worker::SparseDelta* sparse) override {
    engine_.inbox_.push(UpdateReady{info, push_bytes(update.size(), sparse)});
  }
  void send_to_leader(int leader, const protocol::UpdateInfo& info,
                      std::span<const float> update) override {
    MemberMessage message{
        .member = worker_, .gone = false, .info = info, .update = update, .arrives = now()};
    if (!engine_.member_mailboxes_[static_cast<size_t>(leader)]->push_unless_closed(message)) {
      engine_.inbox_.push(OrphanedUpdate{worker_});
    }
  }
  void report_progress(const protocol::UpdateInfo& info, RoundProgress progress) override {
    engine_.inbox_.push(ProgressReport{worker_, progress, info.id});
  }
  void report_gone(const std::string& error, const std::vector<int>& stranded_members) override {
    engine_.inbox_.push(WorkerGone{worker_, error, stranded_members});
  }
  void wait_for_end() override {
    engine_.inbox_.push(WentSilent{worker_});
    while (engine_.gate_.sleep_until(engine_.clock_at(kFarFuture))) {
    }
  }

 private:
  ThreadsEngine& engine_;
  int worker_;
};

ThreadsEngine::ThreadsEngine(const config::Config& config, const data::DataSplit& data,
                             const ModelSource& models, RunListener& listener)
    : config_(config),
      listener_(listener),
      data_(data),
      models_(models),
      evaluator_(models.make_learner()),
      loop_(
          config, data, *evaluator_, listener, *this, [this] { return now(); },
          [](int worker) { return fmt::format("worker {} (a thread of this process)", worker); }),
      delays_(config.cluster, config.seed, loop_.state().server().shard_ranges()),
      timeline_(make_timeline(config)) {
  const int workers = config.cluster.workers;
  const auto partition = make_partition(config, data.train);
  for (int w = 0; w < workers; ++w) {
    learners_.push_back(models.make_learner());
    workers_.push_back(make_worker(config, data.train, partition, w, *learners_.back()));
    mailboxes_.push_back(std::make_unique<Mailbox<PullReply>>());
    member_mailboxes_.push_back(std::make_unique<Mailbox<MemberMessage>>());
  }
  model_arrives_.assign(static_cast<size_t>(workers), 0.0);
  loop_states_.resize(static_cast<size_t>(workers));
}

ThreadsEngine::~ThreadsEngine() { stop_workers(); }

double ThreadsEngine::now() const {
  for (;;) {
    if (frozen_.load()) return frozen_at_.load();
    const Clock::rep paused = paused_.load();
    const Clock::time_point clock = Clock::now();
    // A freeze that began, or came and went, while this read the clock would make the time read
    // run ahead of the one that stood, by up to the evaluation's length: read it again.
    if (!frozen_.load() && paused_.load() == paused) {
      return std::chrono::duration<double>(clock - start_ - Clock::duration(paused)).count();
    }
  }
}

ThreadsEngine::Clock::time_point ThreadsEngine::clock_at(double seconds) const {
  const Clock::duration paused(paused_.load());
  return start_ + paused +
         std::chrono::duration_cast<Clock::duration>(
             std::chrono::duration<double>(std::min(seconds, kFarFuture)));
}

template <typename During>
void ThreadsEngine::with_clock_stopped(During during) {
  frozen_at_.store(now());
  frozen_.store(true);
  gate_.pause();
  const auto begin = Clock::now();
  during();
  paused_ += (Clock::now() - begin).count();  // before the thaw: time resumes where it stood
  frozen_.store(false);
  gate_.resume();
}

void ThreadsEngine::evaluate(ServerState& state, double time) {
  with_clock_stopped([&] { state.evaluate(time); });
}

bool ThreadsEngine::take(ServerLoop& loop) {
  bool taken = false;
  with_clock_stopped([&] {
    const double time = frozen_at_.load();
    if (!loop.may_checkpoint_at(time)) return;
    schedule_->taken(time);
    checkpoints_->save(save_state(time), time);
    taken = true;
    if (schedule_->stop_asked()) throw Interrupted(time);
  });
  return taken;
}

void ThreadsEngine::calibrate() {
  if (!delays_.pads_any_compute()) return;
  // A throwaway model: the run's workers keep theirs untouched.
  auto learner = models_.make_learner();
  const double step_seconds = measure_step_seconds(config_, data_.train, *learner);
  delays_.set_calibrated_step(step_seconds);
  loop_.state().record({"calibration",
                        {{"step_seconds", step_seconds},
                         {"flops_per_step", learner->flops_per_sample() * config_.data.batch_size},
                         {"apply_gbps", measure_apply_gbps(config_, learner->layout())}}},
                       0.0);
}

void ThreadsEngine::record_setup_warnings() {
  const int workers = config_.cluster.workers;
  // The server's thread counts too: it applies updates while the workers compute.
  const unsigned cores = std::thread::hardware_concurrency();
  const auto busy_threads = static_cast<unsigned>(workers * config_.run.threads_per_worker + 1);
  if (cores > 0 && busy_threads > cores) {
    loop_.state().record(
        {"warning",
         {{"message", fmt::format("{} worker threads of {} compute threads each, and the "
                                  "server, share {} cores: the injected heterogeneity is only "
                                  "approximate",
                                  workers, config_.run.threads_per_worker, cores)}}},
        0.0);
  }
  if (const auto warning = speeds_above_one_warning(config_.cluster)) {
    loop_.state().record({"warning", {{"message", *warning}}}, 0.0);
  }
}

bool ThreadsEngine::failed_before(int worker, double time) const {
  const config::WorkerFailure* failure = failure_of(config_.cluster, worker);
  return failure != nullptr && failure->time <= time;
}

metrics::Summary ThreadsEngine::run(const RunCheckpoints& checkpoints) {
  wall_start_ = Clock::now();
  const int workers = config_.cluster.workers;
  checkpoints_ = &checkpoints;
  schedule_.emplace(checkpoints, config_.run.checkpoint_interval);
  const bool resumed = checkpoints.resume_from != nullptr;
  double resumed_at = 0;
  if (resumed) {
    resumed_at = restore_state(*checkpoints.resume_from);
  } else {
    calibrate();
    record_setup_warnings();
  }
  const PreciseWakeups on_time;  // the server's replies leave on time too
  std::vector<int> started;
  for (int w = 0; w < workers; ++w) {
    if (!resumed || !failed_before(w, resumed_at)) started.push_back(w);
  }
  // The workers warm up their models while the run is paused; the clock starts once all have.
  gate_.pause();
  warmed_.emplace(static_cast<std::ptrdiff_t>(started.size()));
  for (const int w : started) {
    loop_states_[static_cast<size_t>(w)].resumed = resumed;
    threads_.emplace_back([this, w] { worker_main(w); });
  }
  warmed_->wait();
  start_ = Clock::now() -
           std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(resumed_at));
  if (resumed) {
    loop_.skip_shard_failures(checkpoints.crashed_shards);
    loop_.release_replies();
  } else {
    loop_.start();
  }
  gate_.resume();
  const std::string stop_reason = loop_.serve(schedule_->enabled() ? this : nullptr);
  stop_workers();
  metrics::Summary summary = loop_.state().finish(now(), stop_reason, "threads", wall_start_);
  publish_timeline(timeline_, delays_.cluster(), summary.total_time, listener_, summary);
  return summary;
}

void ThreadsEngine::send(ServerLoop::Reply reply) {
  const auto w = static_cast<size_t>(reply.worker);
  // A relayed reply leaves its leader when the leader's copy has arrived.
  const double arrives =
      reply.via == protocol::kServer
          ? delays_.pull_arrival(reply.worker, reply.sent)
          : delays_.worker_arrival(reply.via, reply.worker,
                                   model_arrives_[static_cast<size_t>(reply.via)]);
  model_arrives_[w] = arrives;
  mailboxes_[w]->push(PullReply{std::move(reply), arrives});
}

void ThreadsEngine::serve_one(double deadline, ServerLoop& server) {
  std::optional<ServerMessage> message = inbox_.pop_until(clock_at(deadline));
  if (!message) return;
  if (const auto* pull = std::get_if<FirstPull>(&*message)) {
    server.on_first_pull(pull->worker);
  } else if (const auto* gone = std::get_if<WorkerGone>(&*message)) {
    server.on_worker_gone(gone->worker, gone->error, gone->stranded_members);
  } else if (const auto* orphaned = std::get_if<OrphanedUpdate>(&*message)) {
    server.on_orphaned_update(orphaned->member);
  } else if (const auto* silent = std::get_if<WentSilent>(&*message)) {
    server.on_worker_silent(silent->worker);
  } else if (const auto* report = std::get_if<ProgressReport>(&*message)) {
    server.on_round_progress(report->worker, report->progress, report->update_id);
  } else {
    const auto& ready = std::get<UpdateReady>(*message);
    server.on_update(ready.info, ready.bytes);
  }
}

void ThreadsEngine::tell_member_gone(int leader, int member) {
  MemberMessage gone;
  gone.member = member;
  gone.gone = true;
  member_mailboxes_[static_cast<size_t>(leader)]->push_unless_closed(gone);
}

std::vector<int> ThreadsEngine::close_leader(int leader) {
  std::vector<int> unread_members;
  for (const MemberMessage& message : member_mailboxes_[static_cast<size_t>(leader)]->close()) {
    if (!message.gone) unread_members.push_back(message.member);
  }
  return unread_members;
}

void ThreadsEngine::worker_main(int worker) {
  const PreciseWakeups on_time;
  if (models_.set_compute_threads) models_.set_compute_threads(config_.run.threads_per_worker);
  warm_up(data_.train, config_.data.batch_size, *learners_[static_cast<size_t>(worker)]);
  warmed_->count_down();
  if (!gate_.wait_while_paused()) return;
  Link link(*this, worker);
  run_worker(*workers_[static_cast<size_t>(worker)], delays_, link,
             failure_of(config_.cluster, worker), timeline_.worker(worker),
             loop_states_[static_cast<size_t>(worker)]);
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
  for (auto& mailbox : member_mailboxes_) mailbox->close();
  for (std::thread& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
  threads_.clear();
}

}  // namespace hetps::engine
