// What a real engine's worker loop does with an error while it waits for a reply: an ordinary
// one is reported to the server, which stops the run with it; a server taken for hung is not
// reported to (nothing would read the report) but thrown on, for the engine to end the run.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "data/synthetic.h"
#include "engine/engine.h"
#include "engine/worker_loop.h"
#include "support/softmax_learner.h"

namespace hetps::engine {
namespace {

// A link whose wait for the first reply throws `error`, and which records what is reported.
class FailingLink : public WorkerLink {
 public:
  explicit FailingLink(std::function<void()> throw_error) : throw_error_(std::move(throw_error)) {}

  double now() const override { return 0; }
  void ask_first_pull() override {}
  std::optional<PulledModel> receive(double) override {
    throw_error_();
    return std::nullopt;
  }
  bool run_over() override { return false; }
  bool sleep_until(double) override { return true; }
  double push_arrival(double sent, const worker::SparseDelta*) override { return sent; }
  void push(const protocol::UpdateInfo&, std::span<const float>,
            const worker::SparseDelta*) override {
    ADD_FAILURE() << "a push without a reply";
  }
  double member_push_arrival(int, double sent) override { return sent; }
  void send_to_leader(int, const protocol::UpdateInfo&, std::span<const float>) override {
    ADD_FAILURE() << "an update to a leader without a reply";
  }
  std::optional<MemberMessage> receive_from_member(double) override { return std::nullopt; }
  void report_progress(const protocol::UpdateInfo&, RoundProgress) override {
    ADD_FAILURE() << "progress reported without a reply";
  }
  void report_gone(const std::string& error, const std::vector<int>&) override { reported = error; }
  void wait_for_end() override {}

  std::optional<std::string> reported;  // the error the server was told of

 private:
  std::function<void()> throw_error_;
};

class WorkerLoopTest : public ::testing::Test {
 protected:
  WorkerLoopTest()
      : data_(data::make_synthetic(40, 8, 3)),
        learner_(784, 10, 1),
        delays_(config::ClusterConfig{}, 1, {}),
        activity_(16) {
    worker::Partition partition(1);
    for (int64_t i = 0; i < data_.train.size(); ++i) partition[0].push_back(i);
    trainer_ = std::make_unique<worker::Worker>(
        0, learner_, data_.train, std::make_shared<const worker::Partition>(std::move(partition)),
        /*seed=*/9, worker::WorkerOptions{});
  }

  void run(WorkerLink& link) {
    run_worker(*trainer_, delays_, link, /*failure=*/nullptr, activity_, state_);
  }

  data::DataSplit data_;
  testing::SoftmaxLearner learner_;
  InjectedDelays delays_;
  metrics::WorkerActivity activity_;
  WorkerLoopState state_;
  std::unique_ptr<worker::Worker> trainer_;
};

TEST_F(WorkerLoopTest, AnErrorWhileWaitingIsReportedToTheServer) {
  FailingLink link([] { throw std::runtime_error("a message no server sends"); });
  run(link);
  EXPECT_EQ(link.reported, "a message no server sends");
}

TEST_F(WorkerLoopTest, AServerTakenForHungIsThrownOnWithoutAReport) {
  FailingLink link([] { throw ServerSilent("stalled: the server said nothing"); });
  EXPECT_THROW(run(link), ServerSilent);
  EXPECT_EQ(link.reported, std::nullopt);
}

}  // namespace
}  // namespace hetps::engine
