// Registering a user's libtorch module by name, and the seeding of module construction.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/linear.h>

#include <stdexcept>
#include <vector>

#include "model/initial_weights.h"
#include "model/register.h"

namespace hetps::model {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using testing::initial_parameters;

// A linear classifier: logits = W·flatten(x) + b.
struct LinearClassifier : torch::nn::Module {
  LinearClassifier(const InputShape& input, int classes)
      : fc(register_module("fc", torch::nn::Linear(input.floats(), classes))) {}
  torch::Tensor forward(torch::Tensor images) { return fc(images.flatten(1)); }
  torch::nn::Linear fc;
};

// Always returns logits for 3 classes, whatever it was asked for.
struct ThreeClasses : torch::nn::Module {
  ThreeClasses(const InputShape& input, int /*classes*/)
      : fc(register_module("fc", torch::nn::Linear(input.floats(), 3))) {}
  torch::Tensor forward(torch::Tensor images) { return fc(images.flatten(1)); }
  torch::nn::Linear fc;
};

TEST(RegisterModel, ARegisteredModuleBecomesALearnerByName) {
  register_model("test_linear", [](const InputShape& input, int classes) {
    return std::make_shared<LinearClassifier>(input, classes);
  });
  EXPECT_THAT(model_names(), Contains("test_linear"));

  auto learner = make_learner("test_linear", {1, 4, 4}, 3, 1);
  EXPECT_EQ(learner->layout().size(), 16u * 3 + 3);
  EXPECT_EQ(learner->layout().tensors()[0].name, "fc.weight");
  EXPECT_EQ(learner->flops_per_sample(), 3.0 * 2 * 16 * 3);

  // One sample, all-zero weights: logits are 0, so the gradient of the bias is softmax - onehot.
  std::vector<float> weights(learner->layout().size(), 0.0f), grad(weights.size());
  const std::vector<float> image(16, 1.0f);
  const int64_t label = 2;
  const double loss = learner->gradient(weights, Batch{image.data(), &label, 1}, grad);
  EXPECT_NEAR(loss, std::log(3.0), 1e-6);
  EXPECT_NEAR(grad[48], 1.0 / 3, 1e-6);
  EXPECT_NEAR(grad[50], 1.0 / 3 - 1, 1e-6);
}

// A linear classifier behind a BatchNorm, whose running statistics are buffers.
struct NormalizedClassifier : torch::nn::Module {
  NormalizedClassifier(const InputShape& input, int classes)
      : bn(register_module("bn", torch::nn::BatchNorm1d(input.floats()))),
        fc(register_module("fc", torch::nn::Linear(input.floats(), classes))) {}
  torch::Tensor forward(torch::Tensor images) { return fc(bn(images.flatten(1))); }
  torch::nn::BatchNorm1d bn;
  torch::nn::Linear fc;
};

TEST(RegisterModel, AModelWithBuffersIsWarnedOfOnce) {
  register_model("test_batch_norm", [](const InputShape& input, int classes) {
    return std::make_shared<NormalizedClassifier>(input, classes);
  });
  register_model("test_linear_again", [](const InputShape& input, int classes) {
    return std::make_shared<LinearClassifier>(input, classes);
  });
  ::testing::internal::CaptureStderr();
  make_learner("test_batch_norm", {1, 4, 4}, 3, 1);
  make_learner("test_batch_norm", {1, 4, 4}, 3, 2);  // another worker's: no second warning
  make_learner("test_linear_again", {1, 4, 4}, 3, 1);
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(said,
            "hetps: warning: model 'test_batch_norm' has buffers ('bn.running_mean' and 2 more), "
            "such as BatchNorm's running statistics: hetps synchronizes parameters only, so each "
            "worker keeps its own and evaluation sees the evaluating learner's "
            "(model/register.h); GroupNorm and LayerNorm need none\n");
}

TEST(RegisterModel, ANameIsRegisteredOnce) {
  const auto factory = [](const InputShape& input, int classes) {
    return std::make_shared<LinearClassifier>(input, classes);
  };
  register_model("test_once", factory);
  EXPECT_THROW(register_model("test_once", factory), std::invalid_argument);
  try {
    register_model("mlp", factory);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("a model named 'mlp' is already registered"));
  }
}

TEST(RegisterModel, LogitsOfTheWrongShapeAreRejected) {
  register_model("test_three_classes", [](const InputShape& input, int classes) {
    return std::make_shared<ThreeClasses>(input, classes);
  });
  try {
    make_learner("test_three_classes", {1, 4, 4}, 10, 1);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("returned logits of shape [1, 3], expected [1, 10]"));
  }
}

// Fails in libtorch on a batch of more than one sample (making the learner probes one).
struct OneSampleAtATime : torch::nn::Module {
  OneSampleAtATime(const InputShape& input, int classes)
      : fc(register_module("fc", torch::nn::Linear(input.floats(), classes))) {}
  torch::Tensor forward(torch::Tensor images) {
    TORCH_CHECK(images.size(0) == 1, "one sample at a time, got ", images.size(0));
    return fc(images.flatten(1));
  }
  torch::nn::Linear fc;
};

// What libtorch says, without the dozens of C++ frames its errors carry.
TEST(RegisterModel, LibtorchsErrorsComeWithoutTheirBacktrace) {
  register_model("test_one_sample_at_a_time", [](const InputShape& input, int classes) {
    return std::make_shared<OneSampleAtATime>(input, classes);
  });
  auto learner = make_learner("test_one_sample_at_a_time", {1, 4, 4}, 3, 1);
  std::vector<float> weights(learner->layout().size(), 0.0f), grad(weights.size());
  const std::vector<float> images(2 * 16, 1.0f);
  const std::vector<int64_t> labels = {0, 1};
  try {
    learner->gradient(weights, Batch{images.data(), labels.data(), 2}, grad);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("libtorch: one sample at a time, got 2"));
    EXPECT_THAT(error.what(), ::testing::Not(HasSubstr("frame #")));
  }
  EXPECT_THROW(learner->evaluate(weights, Batch{images.data(), labels.data(), 2}),
               std::runtime_error);
}

// Its first layer made for 16 inputs, whatever the images.
struct SixteenInputs : torch::nn::Module {
  SixteenInputs(const InputShape& /*input*/, int classes)
      : fc(register_module("fc", torch::nn::Linear(16, classes))) {}
  torch::Tensor forward(torch::Tensor images) { return fc(images.flatten(1)); }
  torch::nn::Linear fc;
};

TEST(RegisterModel, AModelThatDoesNotFitTheImagesIsRefusedByName) {
  register_model("test_sixteen_inputs", [](const InputShape& input, int classes) {
    return std::make_shared<SixteenInputs>(input, classes);
  });
  try {
    make_learner("test_sixteen_inputs", {1, 5, 5}, 3, 1);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("model 'test_sixteen_inputs': forward on an input of "
                                        "shape [1, 1, 5, 5] failed in libtorch: "));
    EXPECT_THAT(error.what(), ::testing::Not(HasSubstr("frame #")));
  }
}

TEST(ModuleSeeding, IgnoresAndPreservesTheDefaultGenerator) {
  torch::manual_seed(123);
  const auto first = initial_parameters(*make_learner("mlp", {1, 28, 28}, 10, 5));
  const auto expected_draw = torch::rand({4});

  torch::manual_seed(456);
  torch::rand({1000});  // whatever ran before must not matter
  const auto second = initial_parameters(*make_learner("mlp", {1, 28, 28}, 10, 5));
  EXPECT_EQ(first, second);

  torch::manual_seed(123);
  make_learner("mlp", {1, 28, 28}, 10, 5);
  EXPECT_TRUE(torch::equal(torch::rand({4}), expected_draw)) << "the generator's sequence moved";
}

TEST(ModuleSeeding, MakeModuleStartsFromTheLearnersInitialParameters) {
  const auto learner = make_learner("lenet", {1, 28, 28}, 10, 3);
  const auto module = make_module("lenet", {1, 28, 28}, 10, 3);
  const auto weights = initial_parameters(*learner);
  const auto flat = torch::cat([&] {
    std::vector<torch::Tensor> pieces;
    for (const auto& parameter : module.ptr()->parameters()) pieces.push_back(parameter.flatten());
    return pieces;
  }());
  ASSERT_EQ(flat.numel(), static_cast<int64_t>(weights.size()));
  EXPECT_TRUE(
      torch::equal(flat, torch::from_blob(const_cast<float*>(weights.data()), {flat.numel()})));
}

}  // namespace
}  // namespace hetps::model
