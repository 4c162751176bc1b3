#include "tiny_cnn.h"

#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>

#include <memory>

#include "model/register.h"

namespace custom_model {
namespace {

using hetps::model::InputShape;

struct TinyCnn : torch::nn::Module {
  TinyCnn(const InputShape& input, int classes)
      : conv(register_module(
            "conv", torch::nn::Conv2d(
                        torch::nn::Conv2dOptions(input.channels, 8, 3).stride(2).padding(1)))),
        fc(register_module(
            "fc",
            torch::nn::Linear(8 * ((input.height + 1) / 2) * ((input.width + 1) / 2), classes))) {}

  torch::Tensor forward(torch::Tensor images) { return fc(torch::relu(conv(images)).flatten(1)); }

  torch::nn::Conv2d conv;
  torch::nn::Linear fc;
};

}  // namespace

void register_tiny_cnn() {
  hetps::model::register_model("tinycnn", [](const InputShape& input, int classes) {
    return std::make_shared<TinyCnn>(input, classes);
  });
}

}  // namespace custom_model
