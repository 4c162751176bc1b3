#include <gtest/gtest.h>

#include <cstring>

#include "server/lr_schedule.h"
#include "server/sgd_optimizer.h"

namespace hetps::server {
namespace {

TEST(SgdOptimizerTest, PlainSgdStepOnTheMeanOfGradients) {
  std::vector<float> w = {1, 2, 3, 4};
  SgdOptimizer optimizer({0, 4}, w, SgdOptions{});
  std::vector<float> a = {1, 1, 1, 1}, b = {3, 3, 3, 3};
  const float* grads[] = {a.data(), b.data()};
  double weights[] = {0.5, 0.5};
  optimizer.apply_gradients(grads, weights, 0.1, 0.0);
  EXPECT_FLOAT_EQ(w[0], 0.8f);
  EXPECT_FLOAT_EQ(w[3], 3.8f);
}

TEST(SgdOptimizerTest, TouchesOnlyItsRange) {
  std::vector<float> w = {1, 1, 1, 1};
  SgdOptimizer optimizer({1, 3}, w, SgdOptions{});
  std::vector<float> g = {5, 5, 5, 5};
  const float* grads[] = {g.data()};
  double weights[] = {1.0};
  optimizer.apply_gradients(grads, weights, 0.1, 0.0);
  EXPECT_EQ(w, (std::vector<float>{1, 0.5f, 0.5f, 1}));
}

TEST(SgdOptimizerTest, MomentumAndWeightDecayFollowTorchSgd) {
  // torch.optim.SGD(lr=0.1, momentum=0.9, weight_decay=0.01) on w=1 with g=1 twice:
  //  d1 = 1.01, b1 = 1.01, w1 = 1 - 0.101 = 0.899
  //  d2 = 1 + 0.00899 = 1.00899, b2 = 0.909 + 1.00899 = 1.91799, w2 = 0.899 - 0.191799
  std::vector<float> w = {1};
  SgdOptimizer optimizer({0, 1}, w, SgdOptions{false, 0.01});
  std::vector<float> g = {1};
  const float* grads[] = {g.data()};
  double weights[] = {1.0};
  optimizer.apply_gradients(grads, weights, 0.1, 0.9);
  EXPECT_NEAR(w[0], 0.899, 1e-6);
  optimizer.apply_gradients(grads, weights, 0.1, 0.9);
  EXPECT_NEAR(w[0], 0.899 - 0.191799, 1e-6);
}

TEST(SgdOptimizerTest, WeightDecayAppliesWithoutMomentum) {
  // w -= 0.1·(1 + 0.5·2)
  std::vector<float> w = {2};
  SgdOptimizer optimizer({0, 1}, w, SgdOptions{false, 0.5});
  std::vector<float> g = {1};
  const float* grads[] = {g.data()};
  double weights[] = {1.0};
  optimizer.apply_gradients(grads, weights, 0.1, 0.0);
  EXPECT_FLOAT_EQ(w[0], 1.8f);
}

TEST(SgdOptimizerTest, Nesterov) {
  // d = 1, b = 1, w -= 0.1·(1 + 0.9·1)
  std::vector<float> w = {0};
  SgdOptimizer optimizer({0, 1}, w, SgdOptions{true, 0});
  std::vector<float> g = {1};
  const float* grads[] = {g.data()};
  double weights[] = {1.0};
  optimizer.apply_gradients(grads, weights, 0.1, 0.9);
  EXPECT_NEAR(w[0], -0.19, 1e-6);
}

TEST(SgdOptimizerTest, SeveralGradientsGiveTheBitsOfTorchSgdKeyByKey) {
  // Six gradients (more than are summed in one pass) over two 8192-key blocks and a remainder.
  // The reference is torch.optim.SGD's step written per key in float: the gradients summed in
  // order from 0 with the weights rounded to float.
  const size_t size = 2 * 8192 + 5;
  const size_t count = 6;
  const double weights[] = {0.3, 0.2, 0.1, 0.15, 0.05, 0.2};
  const float m = 0.9f, lr = 0.05f, decay = 1e-3f;
  std::vector<std::vector<float>> gradients(count, std::vector<float>(size));
  std::vector<const float*> grads;
  for (size_t k = 0; k < count; ++k) {
    for (size_t i = 0; i < size; ++i) gradients[k][i] = static_cast<float>((i + k) % 13) * 0.011f;
    grads.push_back(gradients[k].data());
  }
  std::vector<float> initial(size);
  for (size_t i = 0; i < size; ++i) initial[i] = static_cast<float>(i % 17) * 0.37f - 2.0f;
  for (bool nesterov : {false, true}) {
    std::vector<float> w = initial;
    SgdOptimizer optimizer({0, size}, w, SgdOptions{nesterov, decay});
    std::vector<float> expected = initial;
    std::vector<float> buffer(size, 0.0f);
    for (int step = 0; step < 2; ++step) {
      optimizer.apply_gradients(grads, weights, lr, m);
      for (size_t i = 0; i < size; ++i) {
        float g = 0.0f;
        for (size_t k = 0; k < count; ++k) g += static_cast<float>(weights[k]) * gradients[k][i];
        const float d = g + decay * expected[i];
        buffer[i] = m * buffer[i] + d;
        expected[i] -= lr * (nesterov ? d + m * buffer[i] : buffer[i]);
      }
    }
    EXPECT_EQ(std::memcmp(w.data(), expected.data(), size * sizeof(float)), 0)
        << "nesterov " << nesterov;
    EXPECT_EQ(std::memcmp(optimizer.momentum_buffer().data(), buffer.data(), size * sizeof(float)),
              0);
  }
}

TEST(SgdOptimizerTest, MergesWeightedDeltasWithoutMomentum) {
  std::vector<float> w = {1, 1};
  SgdOptimizer optimizer({0, 2}, w, SgdOptions{});
  std::vector<float> a = {2, 4}, b = {-2, 0};
  const float* deltas[] = {a.data(), b.data()};
  double weights[] = {0.25, 0.5};
  optimizer.merge_deltas(deltas, weights);
  EXPECT_EQ(w, (std::vector<float>{0.5f, 2.0f}));
}

TEST(LrScheduleTest, Shapes) {
  LrSchedule constant({0.1, "constant"});
  EXPECT_DOUBLE_EQ(constant.at(123456), 0.1);
  LrSchedule step({0.1, "step", 0, 100, 0.5});
  EXPECT_DOUBLE_EQ(step.at(99), 0.1);
  EXPECT_DOUBLE_EQ(step.at(100), 0.05);
  EXPECT_DOUBLE_EQ(step.at(250), 0.025);
  LrSchedule cosine({0.1, "cosine", 0, 0, 0.1, 1000});
  EXPECT_DOUBLE_EQ(cosine.at(0), 0.1);
  EXPECT_NEAR(cosine.at(500), 0.05, 1e-12);
  EXPECT_NEAR(cosine.at(1000), 0.0, 1e-12);
  LrSchedule warm({0.1, "constant", 10});
  EXPECT_NEAR(warm.at(0), 0.01, 1e-12);
  EXPECT_NEAR(warm.at(4), 0.05, 1e-12);
  EXPECT_DOUBLE_EQ(warm.at(10), 0.1);
  // Warm-up scales the schedule's own lr, counted from sample 0: at 7 of 10, the step schedule
  // (×0.5 every 5) is at 0.05, and warm-up takes 8/10 of it.
  LrSchedule warm_step({0.1, "step", 10, 5, 0.5});
  EXPECT_NEAR(warm_step.at(7), 0.1 * 0.5 * 0.8, 1e-12);
  EXPECT_NEAR(warm_step.at(12), 0.1 * 0.25, 1e-12);
  EXPECT_THROW(LrSchedule({0.1, "linear"}), std::invalid_argument);
}

// Past total_samples (a run that goes on, or a resumed one) the cosine stays at its end, 0.
TEST(LrScheduleTest, TheCosineStaysAtZeroPastItsTotalSamples) {
  LrSchedule cosine({0.1, "cosine", 0, 0, 0.1, 1000});
  EXPECT_NEAR(cosine.at(1500), 0.0, 1e-12);
  EXPECT_NEAR(cosine.at(2000), 0.0, 1e-12);
}

}  // namespace
}  // namespace hetps::server
