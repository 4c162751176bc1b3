#include "model/models.h"

#include <torch/nn/functional/pooling.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace hetps::model {
namespace {

namespace nn = torch::nn;
namespace F = torch::nn::functional;

// mlp: a multi-layer perceptron, flattened input → 256 → 128 → classes, ReLU between.
struct Mlp : nn::Module {
  Mlp(const InputShape& input, int classes)
      : fc1(register_module("fc1", nn::Linear(input.floats(), 256))),
        fc2(register_module("fc2", nn::Linear(256, 128))),
        fc3(register_module("fc3", nn::Linear(128, classes))) {}

  torch::Tensor forward(torch::Tensor images) {
    auto x = torch::relu(fc1(images.flatten(1)));
    x = torch::relu(fc2(x));
    return fc3(x);
  }

  nn::Linear fc1, fc2, fc3;
};

// The side of LeNet's last feature map for an input side: conv 5×5 pad 2 keeps it, pool halves
// it, conv 5×5 takes 4, pool halves it.
int64_t lenet_feature_side(const InputShape& input, int side) {
  const int64_t after_conv2 = side / 2 - 4;
  if (after_conv2 < 2) {
    throw std::invalid_argument("model 'lenet' needs inputs of at least 12×12, got " +
                                std::to_string(input.height) + "×" + std::to_string(input.width));
  }
  return after_conv2 / 2;
}

// lenet: LeNet-5 with ReLU and max pooling: conv 6@5×5 pad 2, pool, conv 16@5×5, pool,
// fc 120, fc 84, fc classes.
struct LeNet : nn::Module {
  LeNet(const InputShape& input, int classes)
      : conv1(register_module("conv1",
                              nn::Conv2d(nn::Conv2dOptions(input.channels, 6, 5).padding(2)))),
        conv2(register_module("conv2", nn::Conv2d(nn::Conv2dOptions(6, 16, 5)))),
        fc1(register_module("fc1", nn::Linear(16 * lenet_feature_side(input, input.height) *
                                                  lenet_feature_side(input, input.width),
                                              120))),
        fc2(register_module("fc2", nn::Linear(120, 84))),
        fc3(register_module("fc3", nn::Linear(84, classes))) {}

  torch::Tensor forward(torch::Tensor images) {
    auto x = F::max_pool2d(torch::relu(conv1(images)), F::MaxPool2dFuncOptions(2));
    x = F::max_pool2d(torch::relu(conv2(x)), F::MaxPool2dFuncOptions(2));
    x = torch::relu(fc1(x.flatten(1)));
    x = torch::relu(fc2(x));
    return fc3(x);
  }

  nn::Conv2d conv1, conv2;
  nn::Linear fc1, fc2, fc3;
};

// GroupNorm, not BatchNorm: its statistics come from each sample alone, so the model is its
// parameters and nothing else (no running buffers outside the flat layout, for the server to
// miss), and training and evaluation compute the same function.
constexpr int64_t kNormGroups = 8;

nn::Conv2d conv3x3(int64_t in, int64_t out, int64_t stride) {
  return nn::Conv2d(nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false));
}

nn::GroupNorm group_norm(int64_t channels) {
  return nn::GroupNorm(nn::GroupNormOptions(kNormGroups, channels));
}

// A basic residual block: conv 3×3, norm, ReLU, conv 3×3, norm, plus the input (through a
// strided 1×1 conv and a norm where the shape changes), ReLU.
struct BasicBlock : nn::Module {
  BasicBlock(int64_t in, int64_t out, int64_t stride)
      : conv1(register_module("conv1", conv3x3(in, out, stride))),
        norm1(register_module("norm1", group_norm(out))),
        conv2(register_module("conv2", conv3x3(out, out, 1))),
        norm2(register_module("norm2", group_norm(out))) {
    if (stride != 1 || in != out) {
      projection = register_module(
          "projection", nn::Conv2d(nn::Conv2dOptions(in, out, 1).stride(stride).bias(false)));
      projection_norm = register_module("projection_norm", group_norm(out));
    }
  }

  torch::Tensor forward(torch::Tensor x) {
    auto y = torch::relu(norm1(conv1(x)));
    y = norm2(conv2(y));
    return torch::relu(y + (projection ? projection_norm(projection(x)) : x));
  }

  // Declared in registration order: members are initialized in this order.
  nn::Conv2d conv1;
  nn::GroupNorm norm1;
  nn::Conv2d conv2;
  nn::GroupNorm norm2;
  nn::Conv2d projection{nullptr};
  nn::GroupNorm projection_norm{nullptr};
};

// resnet: a ResNet-8 for small images: conv 3×3 16, then three stages of one basic block
// each (16, 32 and 64 channels, the last two halving the side), global average pooling,
// fc classes.
struct ResNet : nn::Module {
  ResNet(const InputShape& input, int classes)
      : conv(register_module("conv", conv3x3(input.channels, 16, 1))),
        norm(register_module("norm", group_norm(16))),
        stage1(register_module("stage1", std::make_shared<BasicBlock>(16, 16, 1))),
        stage2(register_module("stage2", std::make_shared<BasicBlock>(16, 32, 2))),
        stage3(register_module("stage3", std::make_shared<BasicBlock>(32, 64, 2))),
        fc(register_module("fc", nn::Linear(64, classes))) {}

  torch::Tensor forward(torch::Tensor images) {
    auto x = torch::relu(norm(conv(images)));
    x = stage3->forward(stage2->forward(stage1->forward(x)));
    return fc(x.mean({2, 3}));
  }

  nn::Conv2d conv;
  nn::GroupNorm norm;
  std::shared_ptr<BasicBlock> stage1, stage2, stage3;
  nn::Linear fc;
};

template <typename Model>
ModuleFactory factory_of() {
  return [](const InputShape& input, int classes) {
    return nn::AnyModule(std::make_shared<Model>(input, classes));
  };
}

}  // namespace

std::map<std::string, ModuleFactory> builtin_models() {
  return {
      {"mlp", factory_of<Mlp>()}, {"lenet", factory_of<LeNet>()}, {"resnet", factory_of<ResNet>()}};
}

}  // namespace hetps::model
