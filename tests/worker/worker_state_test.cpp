#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "checkpoint/checkpoint_error.h"
#include "data/synthetic.h"
#include "support/softmax_learner.h"
#include "support/through_cbor.h"
#include "worker/worker.h"

namespace hetps::worker {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

constexpr int kWorkers = 4;
constexpr int kWorkerId = 1;

protocol::WorkerPlan gradient_plan() { return {}; }

protocol::WorkerPlan delta_plan(int steps, double keep_ratio, std::vector<double> shares = {}) {
  protocol::WorkerPlan plan;
  plan.kind = protocol::UpdateKind::Delta;
  plan.max_local_steps = steps;
  plan.keep_ratio = keep_ratio;
  plan.data_shares = std::move(shares);
  return plan;
}

// Rounds of every kind a worker runs: gradients, local steps with momentum, top-k compressed
// deltas with error feedback, and a re-cut of the data to new shares (ASHL).
std::vector<protocol::WorkerPlan> mixed_plans() {
  return {gradient_plan(),    delta_plan(3, 1.0),
          delta_plan(2, 0.1), delta_plan(2, 0.1, {0.1, 0.4, 0.2, 0.3}),
          gradient_plan(),    delta_plan(4, 0.05, {0.1, 0.4, 0.2, 0.3}),
          delta_plan(1, 1.0), delta_plan(2, 0.2, {0.25, 0.25, 0.3, 0.2}),
          gradient_plan(),    delta_plan(3, 0.1)};
}

class WorkerStateTest : public ::testing::Test {
 protected:
  WorkerStateTest() : data_(data::make_synthetic(200, 8, 3)), learner_(784, 10, 1) {
    Partition partition(kWorkers);
    for (int64_t i = 0; i < data_.train.size(); ++i) partition[i % kWorkers].push_back(i);
    partition_ = std::make_shared<const Partition>(std::move(partition));
    pulled_.resize(learner_.layout().size());
    learner_.initial_parameters(pulled_);
  }

  Worker make_worker(model::Learner& learner) {
    return Worker(kWorkerId, learner, data_.train, partition_, /*seed=*/9,
                  WorkerOptions{5, 0.9, {true, 1e-4}});
  }

  // Runs `plans` from a pulled model that moves with each round; returns every update.
  std::vector<std::vector<float>> run_plans(Worker& worker,
                                            const std::vector<protocol::WorkerPlan>& plans,
                                            size_t from, size_t to) {
    std::vector<std::vector<float>> updates;
    for (size_t r = from; r < to; ++r) {
      std::vector<float> pulled = pulled_;
      for (size_t i = 0; i < pulled.size(); i += 97) pulled[i] += 0.01f * static_cast<float>(r);
      std::vector<float>& update = updates.emplace_back(pulled.size());
      const RoundResult result = worker.run(plans[r], pulled, 0.05, update);
      update.push_back(static_cast<float>(result.mean_loss));
      update.push_back(static_cast<float>(result.steps));
    }
    return updates;
  }

  data::DataSplit data_;
  testing::SoftmaxLearner learner_;
  std::shared_ptr<const Partition> partition_;
  std::vector<float> pulled_;
};

TEST_F(WorkerStateTest, ARestoredWorkerComputesTheSameUpdatesAfterEveryKindOfRound) {
  const std::vector<protocol::WorkerPlan> plans = mixed_plans();
  for (size_t saved_after = 0; saved_after < plans.size(); ++saved_after) {
    Worker original = make_worker(learner_);
    run_plans(original, plans, 0, saved_after);
    Worker restored = make_worker(learner_);
    restored.restore_state(testing::through_cbor(original.save_state()));
    EXPECT_EQ(restored.save_state(), original.save_state()) << "saved after " << saved_after;
    EXPECT_EQ(run_plans(restored, plans, saved_after, plans.size()),
              run_plans(original, plans, saved_after, plans.size()))
        << "saved after " << saved_after << " rounds";
  }
}

TEST_F(WorkerStateTest, AStateWithoutLocalStepsOrFeedbackDropsThoseOfTheWorkerRestored) {
  const std::vector<protocol::WorkerPlan> plans = mixed_plans();
  Worker saved = make_worker(learner_);
  run_plans(saved, plans, 0, 1);  // one gradient: no local optimizer yet
  Worker restored = make_worker(learner_);
  run_plans(restored, plans, 0, 6);
  restored.restore_state(saved.save_state());
  EXPECT_EQ(run_plans(restored, plans, 1, plans.size()), run_plans(saved, plans, 1, plans.size()));
}

TEST_F(WorkerStateTest, RefusesSharesForAnotherWorkerCountAndBuffersOfAnotherModel) {
  Worker original = make_worker(learner_);
  run_plans(original, mixed_plans(), 0, 4);
  nlohmann::json three_shares = original.save_state();
  three_shares["data_shares"] = {0.5, 0.25, 0.25};
  Worker restored = make_worker(learner_);
  EXPECT_THAT([&] { restored.restore_state(three_shares); },
              ThrowsMessage<checkpoint::CheckpointError>(
                  HasSubstr("worker 1: data shares: 3 shares for 4 workers")));

  testing::SoftmaxLearner fewer_classes(784, 9, 1);
  Worker smaller = make_worker(fewer_classes);
  EXPECT_THAT([&] { smaller.restore_state(original.save_state()); },
              ThrowsMessage<checkpoint::CheckpointError>(HasSubstr(
                  "worker 1: error feedback: residual: holds 7850 floats, expected 7065")));
  EXPECT_EQ(smaller.save_state(), make_worker(fewer_classes).save_state())
      << "a refused state changes nothing";
}

}  // namespace
}  // namespace hetps::worker
