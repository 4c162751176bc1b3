// The Learner over a libtorch module: the flat bridge of DESIGN.md "The hot path".
#pragma once

#include <torch/nn/modules/container/any.h>

#include <memory>
#include <string>

#include "model/learner.h"

namespace hetps::model {

// Wraps `module` (forward: [N, C, H, W] floats → [N, classes] logits) as a Learner; its current
// weights become the initial parameters. `name` is for error messages. Throws
// std::invalid_argument if the module's parameters are not float32 or its logits have the
// wrong shape.
std::unique_ptr<Learner> make_module_learner(std::string name, torch::nn::AnyModule module,
                                             const InputShape& input, int classes);

}  // namespace hetps::model
