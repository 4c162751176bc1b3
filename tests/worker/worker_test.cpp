#include <cmath>
#include <optional>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "data/sampler.h"
#include "data/share_cut.h"
#include "data/synthetic.h"
#include "support/softmax_learner.h"
#include "worker/worker.h"

namespace hetps::worker {
namespace {

constexpr int kBatch = 8;

class WorkerTest : public ::testing::Test {
 protected:
  WorkerTest() : data_(data::make_synthetic(256, 8, 3)), learner_(784, 10, 1) {
    for (int64_t i = 0; i < data_.train.size(); ++i) indices_.push_back(i);
    pulled_.resize(learner_.layout().size());
    learner_.initial_parameters(pulled_);
  }

  Worker make_worker(double momentum) {
    return Worker(0, learner_, data_.train, std::make_shared<const Partition>(Partition{indices_}),
                  /*seed=*/5, WorkerOptions{kBatch, momentum, {}});
  }

  // The gradients at `pulled_` of the first `count` batches worker 0 draws from `samples`.
  std::vector<std::vector<float>> batch_gradients(int count) {
    return batch_gradients(count, indices_);
  }
  std::vector<std::vector<float>> batch_gradients(int count, std::vector<int64_t> samples) {
    data::BatchSampler sampler(std::move(samples), 5, 0);
    std::vector<float> inputs(kBatch * 784);
    std::vector<int64_t> labels(kBatch);
    std::vector<std::vector<float>> gradients;
    for (int i = 0; i < count; ++i) {
      sampler.next_batch(data_.train, kBatch, inputs.data(), labels.data());
      gradients.emplace_back(pulled_.size());
      learner_.gradient(pulled_, {inputs.data(), labels.data(), kBatch}, gradients.back());
    }
    return gradients;
  }

  data::DataSplit data_;
  testing::SoftmaxLearner learner_;
  std::vector<int64_t> indices_;
  std::vector<float> pulled_;
};

TEST_F(WorkerTest, AGradientPlanWritesOneStepsGradientAtThePulledModel) {
  Worker worker = make_worker(0.9);
  std::vector<float> update(pulled_.size());
  RoundResult result = worker.run(protocol::WorkerPlan{}, pulled_, 0.1, update);
  EXPECT_EQ(result.steps, 1);
  EXPECT_EQ(result.samples, kBatch);
  EXPECT_EQ(update, batch_gradients(1)[0]);
}

TEST_F(WorkerTest, AGradientPlanWithSeveralStepsIsRejected) {
  Worker worker = make_worker(0.9);
  std::vector<float> update(pulled_.size());
  protocol::WorkerPlan plan;
  plan.max_local_steps = 2;
  EXPECT_THROW(worker.run(plan, pulled_, 0.1, update), std::invalid_argument);
}

TEST_F(WorkerTest, LocalMomentumSurvivesAPull) {
  // Two rounds of one local step, each from the same pulled model: the second delta is
  // −lr·(m·g1 + g2), not −lr·g2.
  Worker worker = make_worker(0.9);
  protocol::WorkerPlan plan;
  plan.kind = protocol::UpdateKind::Delta;
  std::vector<float> first(pulled_.size()), second(pulled_.size());
  worker.run(plan, pulled_, 0.1, first);
  worker.run(plan, pulled_, 0.1, second);
  auto g = batch_gradients(2);
  for (size_t i = 0; i < pulled_.size(); i += 97) {
    EXPECT_NEAR(first[i], -0.1f * g[0][i], 1e-7);
    EXPECT_NEAR(second[i], -0.1f * (0.9f * g[0][i] + g[1][i]), 1e-6) << i;
  }
}

TEST_F(WorkerTest, LocalStepsStopAtTheFirstStepThatMovesTheModelPastTheThreshold) {
  protocol::WorkerPlan plan;
  plan.kind = protocol::UpdateKind::Delta;
  std::vector<float> update(pulled_.size());
  std::vector<float> local(pulled_.size());
  // The model's relative change after `steps` steps without a threshold, from the same seeds.
  auto change_after = [&](int steps) {
    plan.change_threshold = 0;
    plan.max_local_steps = steps;
    Worker worker = make_worker(0.0);
    EXPECT_EQ(worker.run(plan, pulled_, 0.05, update).steps, steps);
    for (size_t i = 0; i < local.size(); ++i) local[i] = pulled_[i] + update[i];
    return relative_change(local, pulled_);
  };
  const double threshold = (change_after(3) + change_after(4)) / 2;
  for (int steps = 1; steps <= 3; ++steps) ASSERT_LT(change_after(steps), threshold);
  ASSERT_GT(change_after(4), threshold);

  plan.change_threshold = threshold;
  plan.max_local_steps = 50;
  Worker triggered = make_worker(0.0);
  RoundResult result = triggered.run(plan, pulled_, 0.05, update);
  EXPECT_EQ(result.steps, 4);
  EXPECT_EQ(result.samples, 4 * kBatch);

  plan.max_local_steps = 2;  // the delay bound comes first
  Worker bounded = make_worker(0.0);
  EXPECT_EQ(bounded.run(plan, pulled_, 0.05, update).steps, 2);
}

// Error feedback (spec/ashl.md, Algorithm 2) is the worker's own and spans rounds: each round
// sends top-k of its delta plus what earlier rounds held back, exactly as one ErrorFeedback fed
// the same deltas; the update holds the entries sent and zeros elsewhere.
TEST_F(WorkerTest, ACompressedDeltaCarriesWhatEarlierRoundsHeldBack) {
  protocol::WorkerPlan plan;
  plan.kind = protocol::UpdateKind::Delta;
  plan.max_local_steps = 2;
  // The dense deltas of two rounds, from a twin worker that meets the same batches.
  Worker twin = make_worker(0.9);
  std::vector<std::vector<float>> deltas(2, std::vector<float>(pulled_.size()));
  for (auto& delta : deltas) EXPECT_FALSE(twin.run(plan, pulled_, 0.1, delta).sparse);

  plan.keep_ratio = 0.1;
  Worker worker = make_worker(0.9);
  ErrorFeedback expected(pulled_.size());
  std::vector<float> update(pulled_.size());
  std::optional<SparseDelta> sent;
  for (const auto& delta : deltas) {
    sent = worker.run(plan, pulled_, 0.1, update).sparse;
    ASSERT_TRUE(sent);
    EXPECT_EQ(*sent, expected.compress(delta, 0.1));
    std::vector<float> sent_dense(pulled_.size());
    add_sparse(*sent, sent_dense);
    EXPECT_EQ(update, sent_dense);
  }
  EXPECT_NE(*sent, top_k(deltas[1], 0.1)) << "the first round's residual must count";
}

TEST_F(WorkerTest, WithoutErrorFeedbackEachRoundSendsTopKOfItsOwnDeltaAlone) {
  protocol::WorkerPlan plan;
  plan.kind = protocol::UpdateKind::Delta;
  Worker twin = make_worker(0.9);
  std::vector<std::vector<float>> deltas(2, std::vector<float>(pulled_.size()));
  for (auto& delta : deltas) twin.run(plan, pulled_, 0.1, delta);

  plan.keep_ratio = 0.1;
  plan.error_feedback = false;
  Worker worker = make_worker(0.9);
  std::vector<float> update(pulled_.size());
  for (const auto& delta : deltas) {
    const std::optional<SparseDelta> sent = worker.run(plan, pulled_, 0.1, update).sparse;
    ASSERT_TRUE(sent);
    EXPECT_EQ(*sent, top_k(delta, 0.1));
  }
}

TEST_F(WorkerTest, AboveHalfTheEntriesTheKeptOnesTravelDense) {
  protocol::WorkerPlan plan;
  plan.kind = protocol::UpdateKind::Delta;
  Worker twin = make_worker(0.0);
  std::vector<float> delta(pulled_.size());
  twin.run(plan, pulled_, 0.1, delta);

  plan.keep_ratio = 0.6;  // 8 bytes for each of 60% of the entries: more than 4 for all
  Worker worker = make_worker(0.0);
  std::vector<float> update(pulled_.size());
  EXPECT_FALSE(worker.run(plan, pulled_, 0.1, update).sparse);
  std::vector<float> kept(pulled_.size());
  add_sparse(top_k(delta, 0.6), kept);
  EXPECT_EQ(update, kept) << "the same 60% of the entries, laid out dense";
}

TEST_F(WorkerTest, ADenseRoundAfterCompressedOnesSendsWhatWasHeldBack) {
  protocol::WorkerPlan plan;
  plan.kind = protocol::UpdateKind::Delta;
  Worker twin = make_worker(0.0);
  std::vector<float> first(pulled_.size()), second(pulled_.size());
  twin.run(plan, pulled_, 0.1, first);
  twin.run(plan, pulled_, 0.1, second);

  Worker worker = make_worker(0.0);
  std::vector<float> update(pulled_.size());
  plan.keep_ratio = 0.1;
  worker.run(plan, pulled_, 0.1, update);
  plan.keep_ratio = 1.0;
  const RoundResult dense = worker.run(plan, pulled_, 0.1, update);
  EXPECT_FALSE(dense.sparse);
  ErrorFeedback expected(pulled_.size());
  expected.compress(first, 0.1);
  std::vector<float> everything_left(pulled_.size());
  add_sparse(expected.compress(second, 1.0), everything_left);
  EXPECT_EQ(update, everything_left);
}

TEST_F(WorkerTest, AGradientPlanIsNeverCompressed) {
  Worker worker = make_worker(0.9);
  std::vector<float> update(pulled_.size());
  protocol::WorkerPlan plan;
  plan.keep_ratio = 0.5;
  EXPECT_THAT(
      [&] { worker.run(plan, pulled_, 0.1, update); },
      ::testing::ThrowsMessage<std::invalid_argument>(::testing::HasSubstr(
          "a gradient plan with keep_ratio = 0.5: only model deltas are top-k compressed")));
}

TEST_F(WorkerTest, DataSharesRecutTheRunsPartitionAndStartAFreshEpochOnce) {
  // Two workers' partition: worker 0 holds the even samples, worker 1 the odd ones.
  Partition partition(2);
  for (int64_t i : indices_) partition[static_cast<size_t>(i % 2)].push_back(i);
  Worker worker(0, learner_, data_.train, std::make_shared<const Partition>(partition),
                /*seed=*/5, WorkerOptions{kBatch, 0.9, {}});
  std::vector<float> update(pulled_.size());
  worker.run(protocol::WorkerPlan{}, pulled_, 0.1, update);
  EXPECT_EQ(update, batch_gradients(1, partition[0])[0]);

  protocol::WorkerPlan plan;
  plan.data_shares = {0.25, 0.75};
  const std::vector<int64_t> cut = data::cut_to_shares(partition, plan.data_shares)[0];
  ASSERT_EQ(cut.size(), indices_.size() / 4);
  const auto expected = batch_gradients(2, cut);
  worker.run(plan, pulled_, 0.1, update);
  EXPECT_EQ(update, expected[0]) << "the first batch of a fresh epoch over the cut";
  worker.run(plan, pulled_, 0.1, update);
  EXPECT_EQ(update, expected[1]) << "the same shares again cut nothing";
}

TEST(RelativeChangeTest, IsTheSquaredDistanceOverTheSquaredNorm) {
  std::vector<float> a = {3, 4}, b = {0, 4}, zero = {0, 0};
  EXPECT_DOUBLE_EQ(relative_change(a, b), 9.0 / 16.0);
  EXPECT_DOUBLE_EQ(relative_change(zero, zero), 0.0);
  EXPECT_TRUE(std::isinf(relative_change(a, zero)));
}

}  // namespace
}  // namespace hetps::worker
