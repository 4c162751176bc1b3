// The built-in models, by name: `mlp`, `lenet` and `resnet` (see models.cpp for each).
#pragma once

#include <map>
#include <string>

#include "model/register.h"

namespace hetps::model {

std::map<std::string, ModuleFactory> builtin_models();

}  // namespace hetps::model
