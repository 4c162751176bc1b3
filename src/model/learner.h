// A trainable model seen through flat buffers: the bridge between libtorch and the rest of
// hetps. This header includes no libtorch on purpose (compile time, and the core is tested
// without libtorch); the implementations live in src/model/*.cpp.
//
//   auto learner = model::make_learner("mlp", {1, 28, 28}, 10, /*seed=*/1);
//   std::vector<float> w(learner->layout().size()), g(w.size());
//   learner->initial_parameters(w);
//   double loss = learner->gradient(w, batch, g);   // g = ∇ mean loss at w
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "params/layout.h"

namespace hetps::model {

struct InputShape {
  int channels = 1;
  int height = 28;
  int width = 28;
  int64_t floats() const { return int64_t{channels} * height * width; }
};

// `size` samples, inputs row-major (size × InputShape::floats()), labels in [0, classes).
struct Batch {
  const float* inputs = nullptr;
  const int64_t* labels = nullptr;
  int64_t size = 0;
};

struct Evaluation {
  double accuracy = 0;  // fraction correct
  double loss = 0;      // mean cross-entropy
};

// One model instance with its own libtorch module: use each Learner from one thread at a time.
class Learner {
 public:
  virtual ~Learner() = default;
  virtual const params::ParamLayout& layout() const = 0;
  // The initial parameters, the same for the same seed.
  virtual void initial_parameters(std::span<float> out) const = 0;
  // Writes ∇(mean loss on `batch`) at `params` into `grad`; returns the mean loss.
  // `params` and `grad` have layout().size() floats. Re-pointing the model at a new buffer is
  // cheap (views, no copy), so callers may alternate buffers freely.
  virtual double gradient(std::span<const float> params, const Batch& batch,
                          std::span<float> grad) = 0;
  virtual Evaluation evaluate(std::span<const float> params, const Batch& data) = 0;
  // Forward + backward floating-point operations per sample: the simulator's unit of work.
  virtual double flops_per_sample() const = 0;
};

// Creates a registered model (the built-ins, or your own: see model/register.h). Throws
// std::invalid_argument naming the allowed names.
std::unique_ptr<Learner> make_learner(const std::string& name, const InputShape& input, int classes,
                                      uint64_t seed);
// The names `make_learner` accepts, sorted.
std::vector<std::string> model_names();

}  // namespace hetps::model
