#include "bench/mpi_transport/engine_exchange.h"

#include <stdexcept>

#include <fmt/format.h>

#include "bench/mpi_transport/blank_learner.h"
#include "engine/server_loop.h"
#include "engine/worker_loop.h"
#include "mpi/rank_layout.h"
#include "mpi/run_clock.h"
#include "mpi/server_endpoint.h"
#include "mpi/worker_endpoint.h"

namespace hetps::bench {
namespace {

// How long either end waits for the other: far longer than a round trip of a 64 MB model on a
// crowded host, and still an end.
constexpr double kPatienceSeconds = 60;
constexpr int kWorkerRank = 1;

config::Config one_worker_asp() {
  config::Config config;
  config.engine = "mpi";
  config.protocol.name = "asp";
  config.cluster.workers = 1;
  config.cluster.servers = 1;
  config.train.momentum = 0;  // no momentum buffer: nothing is applied
  return config;
}

// The run log is not wanted: it would hold one evaluation of the blank model, at time 0.
class SilentListener : public engine::RunListener {
 public:
  void on_eval(const metrics::EvalRecord&) override {}
  void on_event(const nlohmann::json&) override {}
};

// The server loop with the apply left out (see engine_exchange.h): the update's buffer goes
// back to the pool and the model keeps its version.
class TransportOnlyLoop : public engine::ServerLoop {
 public:
  using engine::ServerLoop::ServerLoop;
  int64_t apply(const protocol::ApplyOrder& order) override {
    for (int id : order.update_ids) discard(id);
    return version();
  }
};

class ServerEnd : public EngineExchange {
 public:
  ServerEnd(MPI_Comm comm, size_t floats)
      : comm_(comm),
        config_(one_worker_asp()),
        evaluator_(floats),
        layout_(config_.cluster, comm, config_.run.stall_timeout_s),
        endpoint_(comm, layout_, {0, floats}, floats, nullptr, clock_),
        loop_(
            config_, data_, evaluator_, listener_, endpoint_, [this] { return clock_.now(); },
            [this](int worker) { return layout_.describe_worker(worker); }) {
    clock_.start(comm, mpi::Patience::before_training(config_.run));
    loop_.start();
    serve_next();  // the first pull
  }

  double round_trips(int rounds) override {
    for (int round = 0; round < rounds; ++round) serve_next();
    double seconds = 0;
    MPI_Bcast(&seconds, 1, MPI_DOUBLE, kWorkerRank, comm_);
    return seconds;
  }

  void end() override {
    if (!endpoint_.stop_workers(kPatienceSeconds).empty()) {
      throw std::runtime_error(
          fmt::format("the worker rank did not say goodbye within {} s", kPatienceSeconds));
    }
  }

 private:
  // Takes the worker's next message and replies to it. Every message owes the server a new
  // update, so a message taken shows as a new owed update id.
  void serve_next() {
    const int owed = loop_.owed_update(0);
    endpoint_.serve_one(clock_.now() + kPatienceSeconds, loop_);
    if (loop_.owed_update(0) == owed) {
      throw std::runtime_error(
          fmt::format("the worker rank sent no pull or update within {} s", kPatienceSeconds));
    }
  }

  MPI_Comm comm_;
  config::Config config_;
  data::DataSplit data_;  // empty: the blank model's evaluation reads no data
  BlankLearner evaluator_;
  SilentListener listener_;
  mpi::RankLayout layout_;
  mpi::RunClock clock_;
  mpi::ServerEndpoint endpoint_;
  TransportOnlyLoop loop_;
};

class WorkerEnd : public EngineExchange {
 public:
  WorkerEnd(MPI_Comm comm, size_t floats)
      : comm_(comm),
        layout_(one_worker_asp().cluster, comm, one_worker_asp().run.stall_timeout_s),
        // One server: no shard rank sends slices, so the slice communicator is never used.
        endpoint_(comm, comm, layout_, {{0, floats}}, clock_, one_worker_asp().run.stall_warning_s,
                  one_worker_asp().run.stall_timeout_s) {
    clock_.start(comm, mpi::Patience::before_training(one_worker_asp().run));
    endpoint_.ask_first_pull();
    pulled_ = next_reply();
  }

  double round_trips(int rounds) override {
    const double begin = MPI_Wtime();
    for (int round = 0; round < rounds; ++round) {
      push();
      pulled_ = next_reply();
    }
    double seconds = MPI_Wtime() - begin;
    MPI_Bcast(&seconds, 1, MPI_DOUBLE, kWorkerRank, comm_);
    return seconds;
  }

  void end() override { endpoint_.say_goodbye(kPatienceSeconds, /*timeline=*/{}); }

 private:
  // The update a step on `pulled_` would push, as run_worker describes it.
  void push() {
    const protocol::UpdateInfo info{.id = pulled_.update_id,
                                    .worker = layout_.worker_of(layout_.rank()),
                                    .kind = pulled_.plan.kind,
                                    .base_version = pulled_.version,
                                    .clock = ++pushes_};
    endpoint_.push(info, pulled_.update, nullptr);  // dense, as a whole-model push
  }

  engine::PulledModel next_reply() {
    auto reply = endpoint_.receive(endpoint_.now() + kPatienceSeconds);
    if (!reply) {
      throw std::runtime_error(
          fmt::format("the server rank sent no pull reply within {} s", kPatienceSeconds));
    }
    return *std::move(reply);
  }

  MPI_Comm comm_;
  mpi::RankLayout layout_;
  mpi::RunClock clock_;
  mpi::WorkerEndpoint endpoint_;
  engine::PulledModel pulled_;
  int64_t pushes_ = 0;
};

}  // namespace

std::unique_ptr<EngineExchange> EngineExchange::start(MPI_Comm comm, size_t floats) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == kWorkerRank) return std::make_unique<WorkerEnd>(comm, floats);
  return std::make_unique<ServerEnd>(comm, floats);
}

}  // namespace hetps::bench
