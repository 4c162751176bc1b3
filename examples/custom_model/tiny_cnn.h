// "tinycnn": a model defined outside hetps, as a user would, and registered by name.
#pragma once

namespace custom_model {

// Registers "tinycnn" (conv 8@3×3 stride 2, ReLU, fc classes) with hetps's model registry.
void register_tiny_cnn();

}  // namespace custom_model
