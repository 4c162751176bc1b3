// Adding a model of your own: register a libtorch module under a name, then use that name
// wherever hetps takes a model name (`make_learner`, `--set model.name=...`). This header, unlike
// learner.h, includes libtorch: include it only where you define a model.
//
//   struct TinyCnn : torch::nn::Module {
//     TinyCnn(const hetps::model::InputShape& input, int classes) { ... register_module ... }
//     torch::Tensor forward(torch::Tensor images);   // [N, C, H, W] -> logits [N, classes]
//   };
//
//   int main(int argc, char** argv) {
//     hetps::model::register_model("tinycnn", [](const hetps::model::InputShape& input,
//                                                int classes) {
//       return std::make_shared<TinyCnn>(input, classes);
//     });
//     auto learner = hetps::model::make_learner("tinycnn", {1, 28, 28}, 10, /*seed=*/1);
//   }
//
// The module's contract:
// - `forward` takes one float tensor [N, C, H, W] and returns logits [N, classes];
// - its parameters are float32; they become views into hetps's flat buffers, in the order
//   `named_parameters()` lists them;
// - its initial weights come from libtorch's default generator (the `torch::nn` layers'
//   defaults, or `torch::nn::init` in the constructor): hetps seeds that generator for the
//   construction, so the same seed gives the same weights;
// - buffers (BatchNorm's running statistics) are NOT parameters: each learner keeps its own,
//   nothing synchronizes them, and evaluation would depend on which learner evaluates (hetps
//   warns, on stderr, the first time it builds a model with buffers). Prefer GroupNorm or
//   LayerNorm, as the built-in `resnet` does.
#pragma once

#include <torch/nn/modules/container/any.h>

#include <functional>
#include <string>
#include <utility>

#include "model/learner.h"

namespace hetps::model {

// A model's constructor, type-erased. The same arguments must give the same architecture.
using ModuleFactory = std::function<torch::nn::AnyModule(const InputShape& input, int classes)>;

// Registers `factory` under `name`. Throws std::invalid_argument if the name is taken (the
// built-ins are `mlp`, `lenet` and `resnet`). Safe to call before `main` (from a static
// initializer) or from `main`, before the name is first used.
void register_model_factory(std::string name, ModuleFactory factory);

// Registers a factory returning `std::shared_ptr<YourModule>` or a `torch::nn::ModuleHolder`
// (a TORCH_MODULE), wrapping it into a ModuleFactory.
template <typename Factory>
void register_model(std::string name, Factory factory) {
  register_model_factory(std::move(name),
                         [factory = std::move(factory)](const InputShape& input, int classes) {
                           return torch::nn::AnyModule(factory(input, classes));
                         });
}

// Builds the registered module `name` with its initial weights for `seed`, as `make_learner`
// does, but as a plain libtorch module: for comparing against a bare libtorch loop.
torch::nn::AnyModule make_module(const std::string& name, const InputShape& input, int classes,
                                 uint64_t seed);

}  // namespace hetps::model
