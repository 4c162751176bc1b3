// The built-in models through the libtorch-free Learner interface: layouts, FLOP counts,
// gradients (against finite differences), re-pointing at new buffers, seeding, training and
// evaluation.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "model/initial_weights.h"
#include "model/learner.h"

namespace hetps::model {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::initial_parameters;

constexpr InputShape kImage{1, 28, 28};
constexpr int kClasses = 10;

// Uniform random images and labels, fixed by `seed`.
struct RandomSamples {
  RandomSamples(int64_t count, uint64_t seed) : inputs(count * kImage.floats()), labels(count) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
    std::uniform_int_distribution<int64_t> label(0, kClasses - 1);
    for (auto& value : inputs) value = pixel(random);
    for (auto& value : labels) value = label(random);
  }
  Batch batch() const { return Batch{inputs.data(), labels.data(), std::ssize(labels)}; }

  std::vector<float> inputs;
  std::vector<int64_t> labels;
};

std::vector<std::string> tensor_names(const params::ParamLayout& layout) {
  std::vector<std::string> names;
  for (const auto& slot : layout.tensors()) names.push_back(slot.name);
  return names;
}

TEST(LearnerLayout, MlpListsEveryTensorInModuleOrder) {
  const auto mlp = make_learner("mlp", kImage, kClasses, 1);
  EXPECT_EQ(mlp->layout().size(), 235'146u);
  EXPECT_THAT(tensor_names(mlp->layout()), ElementsAre("fc1.weight", "fc1.bias", "fc2.weight",
                                                       "fc2.bias", "fc3.weight", "fc3.bias"));
  EXPECT_THAT(mlp->layout().tensors()[0].shape, ElementsAre(256, 784));
  EXPECT_THAT(mlp->layout().tensors()[4].shape, ElementsAre(10, 128));
}

TEST(LearnerLayout, LeNetAndResNetSizes) {
  // lenet: conv1 6·25+6, conv2 16·6·25+16, fc 400·120+120, 120·84+84, 84·10+10.
  EXPECT_EQ(make_learner("lenet", kImage, kClasses, 1)->layout().size(), 61'706u);
  // resnet: stem 144+32; stage1 2·2304+2·32; stage2 4608+9216+512+3·64; stage3
  // 18432+36864+2048+3·128; fc 650.
  const auto resnet = make_learner("resnet", kImage, kClasses, 1);
  EXPECT_EQ(resnet->layout().size(), 77'754u);
  EXPECT_EQ(resnet->layout().tensors().front().name, "conv.weight");
  EXPECT_EQ(resnet->layout().tensors().back().name, "fc.bias");
}

TEST(LearnerLayout, ModelsAreGenericOverInputAndClasses) {
  const auto mlp = make_learner("mlp", {3, 8, 8}, 4, 1);
  EXPECT_THAT(mlp->layout().tensors()[0].shape, ElementsAre(256, 192));
  EXPECT_THAT(mlp->layout().tensors()[5].shape, ElementsAre(4));
  EXPECT_THAT(make_learner("lenet", {3, 32, 32}, 4, 1)->layout().tensors()[4].shape,
              ElementsAre(120, 16 * 6 * 6));
}

TEST(LearnerFlops, AreThreeTimesTheForwardDenseLayers) {
  // 784·256 + 256·128 + 128·10 multiply-adds.
  EXPECT_EQ(make_learner("mlp", kImage, kClasses, 1)->flops_per_sample(), 3.0 * 2 * 234'752);
  // conv1 25·6·28², conv2 25·6·16·10², fc 400·120 + 120·84 + 84·10.
  EXPECT_EQ(make_learner("lenet", kImage, kClasses, 1)->flops_per_sample(), 3.0 * 2 * 416'520);
  // stem 9·16·28²; stage1 2·9·16·16·28²; stage2 (9·16·32 + 9·32·32 + 16·32)·14²; stage3
  // (9·32·64 + 9·64·64 + 32·64)·7²; fc 64·10.
  EXPECT_EQ(make_learner("resnet", kImage, kClasses, 1)->flops_per_sample(), 3.0 * 2 * 9'345'920);
}

TEST(LearnerGradient, MatchesCentralFiniteDifferences) {
  auto mlp = make_learner("mlp", kImage, kClasses, 1);
  const RandomSamples samples(8, 3);
  auto weights = initial_parameters(*mlp);
  std::vector<float> grad(weights.size());
  std::vector<float> scratch(weights.size());
  mlp->gradient(weights, samples.batch(), grad);

  // In each tensor, the coordinate of largest gradient (0.01 to 0.16 here): smaller ones would
  // drown in the rounding. The loss (about 2.3) is a float32: one ulp of it, 2.4e-7, over 2·eps
  // is 4e-5, so the tolerance allows about 4 ulps of rounding, plus 1% for curvature (a larger
  // eps crosses ReLU kinks: at eps = 3e-2 the error reaches 6e-4). Observed errors: at most 5e-5.
  for (const auto& slot : mlp->layout().tensors()) {
    const auto first = grad.begin() + static_cast<std::ptrdiff_t>(slot.offset);
    const auto largest =
        std::max_element(first, first + static_cast<std::ptrdiff_t>(slot.count),
                         [](float a, float b) { return std::abs(a) < std::abs(b); });
    const auto i = static_cast<size_t>(largest - grad.begin());
    const float eps = 3e-3f;
    const float original = weights[i];
    weights[i] = original + eps;
    const double loss_plus = mlp->gradient(weights, samples.batch(), scratch);
    weights[i] = original - eps;
    const double loss_minus = mlp->gradient(weights, samples.batch(), scratch);
    weights[i] = original;
    const double finite_difference = (loss_plus - loss_minus) / (2 * eps);
    EXPECT_NEAR(finite_difference, grad[i], 1.5e-4 + 1e-2 * std::abs(grad[i])) << slot.name;
  }
}

TEST(LearnerGradient, RepointingAtOtherBuffersMatchesFreshLearners) {
  const RandomSamples samples(16, 4);
  auto learner = make_learner("lenet", kImage, kClasses, 1);
  const auto weights_a = initial_parameters(*learner);
  const auto weights_b = initial_parameters(*make_learner("lenet", kImage, kClasses, 2));
  auto fresh_gradient = [&](const std::vector<float>& weights) {
    std::vector<float> grad(weights.size());
    make_learner("lenet", kImage, kClasses, 1)->gradient(weights, samples.batch(), grad);
    return grad;
  };
  const auto expected_a = fresh_gradient(weights_a);
  const auto expected_b = fresh_gradient(weights_b);
  ASSERT_NE(expected_a, expected_b);

  std::vector<float> grad_a(weights_a.size()), grad_b(weights_a.size()), grad_a2(weights_a.size());
  learner->gradient(weights_a, samples.batch(), grad_a);
  learner->gradient(weights_b, samples.batch(), grad_b);
  learner->gradient(weights_a, samples.batch(), grad_a2);
  EXPECT_EQ(grad_a, expected_a);  // untouched by the later calls into other buffers
  EXPECT_EQ(grad_b, expected_b);
  EXPECT_EQ(grad_a2, expected_a);
}

TEST(LearnerGradient, RejectsBuffersOfTheWrongSizeAndLabelsOutOfRange) {
  auto mlp = make_learner("mlp", kImage, kClasses, 1);
  RandomSamples samples(2, 5);
  auto weights = initial_parameters(*mlp);
  std::vector<float> short_grad(10);
  try {
    mlp->gradient(weights, samples.batch(), short_grad);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("grad has 10 floats; the model has 235146"));
  }
  std::vector<float> grad(weights.size());
  samples.labels[1] = kClasses;
  try {
    mlp->gradient(weights, samples.batch(), grad);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("label 10 of sample 1 is outside [0, 10)"));
  }
}

TEST(LearnerSeed, SameSeedSameParametersOtherSeedOthers) {
  for (const auto& name : model_names()) {
    const auto first = initial_parameters(*make_learner(name, kImage, kClasses, 7));
    const auto again = initial_parameters(*make_learner(name, kImage, kClasses, 7));
    const auto other = initial_parameters(*make_learner(name, kImage, kClasses, 8));
    EXPECT_EQ(params::hash_parameters(first), params::hash_parameters(again)) << name;
    EXPECT_NE(params::hash_parameters(first), params::hash_parameters(other)) << name;
  }
}

struct TrainingCase {
  const char* model;
  float lr;
};

// Plain SGD with a step small enough to lower the loss every time (larger ones oscillate on 4
// samples).
class LearnerTraining : public ::testing::TestWithParam<TrainingCase> {};

TEST_P(LearnerTraining, EachSgdStepOnAFixedBatchLowersItsLoss) {
  auto learner = make_learner(GetParam().model, kImage, kClasses, 1);
  const RandomSamples samples(4, 6);
  auto weights = initial_parameters(*learner);
  std::vector<float> grad(weights.size());
  double loss = learner->gradient(weights, samples.batch(), grad);
  for (int step = 0; step < 5; ++step) {
    for (size_t i = 0; i < weights.size(); ++i) weights[i] -= GetParam().lr * grad[i];
    const double previous = loss;
    loss = learner->gradient(weights, samples.batch(), grad);
    EXPECT_LT(loss, previous) << "step " << step;
  }
}

INSTANTIATE_TEST_SUITE_P(BuiltIns, LearnerTraining,
                         ::testing::Values(TrainingCase{"mlp", 0.05f}, TrainingCase{"lenet", 0.1f},
                                           TrainingCase{"resnet", 0.02f}),
                         [](const auto& info) { return std::string(info.param.model); });

// All weights zero but fc3.bias[3] = 1: the logits are e₃ whatever the input, so class 3 is
// always predicted, with loss log(9 + e) - 1 when right and log(9 + e) otherwise.
TEST(LearnerEvaluate, CountsAccuracyAndMeanLossOverChunks) {
  auto mlp = make_learner("mlp", kImage, kClasses, 1);
  std::vector<float> weights(mlp->layout().size(), 0.0f);
  weights[mlp->layout().tensors()[5].offset + 3] = 1.0f;
  // 2,500 samples, more than one evaluation chunk; every fifth is labelled 3.
  RandomSamples samples(2'500, 9);
  for (size_t i = 0; i < samples.labels.size(); ++i) samples.labels[i] = i % 5 == 0 ? 3 : 1;

  const Evaluation evaluation = mlp->evaluate(weights, samples.batch());
  EXPECT_DOUBLE_EQ(evaluation.accuracy, 0.2);
  const double log_partition = std::log(9.0 + std::exp(1.0));
  EXPECT_NEAR(evaluation.loss, 0.2 * (log_partition - 1) + 0.8 * log_partition, 1e-6);
}

TEST(LearnerRegistry, UnknownNameListsTheRegisteredModels) {
  try {
    make_learner("transformer", kImage, kClasses, 1);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("unknown model 'transformer'"));
    EXPECT_THAT(error.what(), HasSubstr("lenet, mlp, resnet"));
  }
}

TEST(LearnerRegistry, RejectsImpossibleShapes) {
  EXPECT_THROW(make_learner("mlp", kImage, 1, 1), std::invalid_argument);
  EXPECT_THROW(make_learner("mlp", {0, 28, 28}, kClasses, 1), std::invalid_argument);
  try {
    make_learner("lenet", {1, 8, 8}, kClasses, 1);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("at least 12×12, got 8×8"));
  }
}

}  // namespace
}  // namespace hetps::model
