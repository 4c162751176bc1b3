#include <torch/nn/module.h>
#include <torch/utils.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "model/flop_counter.h"
#include "model/module_learner.h"

namespace hetps::model {
namespace {

// Evaluation runs in chunks so that a whole test set's activations never sit in memory at once.
constexpr int64_t kEvaluationChunk = 1000;

// Backward costs about twice the forward pass: one product for the gradient of the inputs and
// one for the gradient of the weights, per forward product.
constexpr double kForwardBackwardOverForward = 3.0;

std::string shape_text(c10::IntArrayRef sizes) {
  std::string text = "[";
  for (size_t i = 0; i < sizes.size(); ++i) text += (i ? ", " : "") + std::to_string(sizes[i]);
  return text + "]";
}

// A view of `slot` in the flat buffer at `base`: the tensor and the buffer share memory.
torch::Tensor view_of(const float* base, const params::TensorSlot& slot) {
  // libtorch has no read-only tensors; the forward pass only reads the parameters.
  return torch::from_blob(const_cast<float*>(base) + slot.offset, slot.shape);
}

// libtorch's errors (a batch it cannot allocate, a model that does not fit the input) carry a
// backtrace of dozens of C++ frames in what(): the user is told the message alone.
template <class Compute>
auto without_backtrace(Compute compute) -> decltype(compute()) {
  try {
    return compute();
  } catch (const c10::Error& error) {
    throw std::runtime_error(fmt::format("libtorch: {}", error.what_without_backtrace()));
  }
}

// Buffers (BatchNorm's running statistics) are not parameters: each learner keeps its own and
// nothing synchronizes them (register.h). Said once per model, as every worker builds one.
void warn_of_buffers(const std::string& name, const torch::nn::Module& module) {
  const auto buffers = module.named_buffers();
  if (buffers.is_empty()) return;
  static std::mutex mutex;
  static std::set<std::string> warned;
  std::lock_guard lock(mutex);
  if (!warned.insert(name).second) return;
  std::cerr << "hetps: warning: model '" << name << "' has buffers ('" << buffers.keys().front()
            << "'"
            << (buffers.size() > 1 ? " and " + std::to_string(buffers.size() - 1) + " more" : "")
            << "), such as BatchNorm's running statistics: hetps synchronizes parameters only, so "
               "each worker keeps its own and evaluation sees the evaluating learner's "
               "(model/register.h); GroupNorm and LayerNorm need none\n";
}

class ModuleLearner final : public Learner {
 public:
  ModuleLearner(std::string name, torch::nn::AnyModule module, const InputShape& input, int classes)
      : name_(std::move(name)), module_(std::move(module)), input_(input), classes_(classes) {
    for (const auto& parameter : module_.ptr()->named_parameters()) {
      if (parameter.value().scalar_type() != torch::kFloat) {
        throw std::invalid_argument("model '" + name_ + "': parameter '" + parameter.key() +
                                    "' is " +
                                    std::string(c10::toString(parameter.value().scalar_type())) +
                                    "; hetps needs float32 parameters");
      }
      layout_.add(parameter.key(), parameter.value().sizes().vec());
      parameters_.push_back(parameter.value());
    }
    if (parameters_.empty()) {
      throw std::invalid_argument("model '" + name_ + "' has no parameters to train");
    }
    warn_of_buffers(name_, *module_.ptr());
    initial_.resize(layout_.size());
    for (size_t i = 0; i < parameters_.size(); ++i) {
      const auto& slot = layout_.tensors()[i];
      std::memcpy(initial_.data() + slot.offset, parameters_[i].contiguous().data_ptr<float>(),
                  slot.count * sizeof(float));
    }
    training_ = module_.ptr()->is_training();
    flops_per_sample_ = kForwardBackwardOverForward * probe_forward_flops();
  }

  const params::ParamLayout& layout() const override { return layout_; }

  void initial_parameters(std::span<float> out) const override {
    check_floats("initial_parameters: out", out.size());
    std::copy(initial_.begin(), initial_.end(), out.begin());
  }

  double gradient(std::span<const float> params, const Batch& batch,
                  std::span<float> grad) override {
    check_floats("gradient: params", params.size());
    check_floats("gradient: grad", grad.size());
    check_batch("gradient", batch);
    return without_backtrace([&] {
      bind_parameters(params.data());
      set_training(true);
      auto loss =
          torch::cross_entropy_loss(forward(batch, 0, batch.size), labels(batch, 0, batch.size));
      loss.backward();
      // Backward left each gradient in a fresh tensor (no zeroing, no accumulation pass): one
      // copy moves it into the caller's flat buffer, and the next backward starts fresh again.
      for (size_t i = 0; i < parameters_.size(); ++i) {
        const params::TensorSlot& slot = layout_.tensors()[i];
        const torch::Tensor& computed = parameters_[i].grad();
        if (computed.is_contiguous()) {  // the usual case: a plain copy skips libtorch's dispatch
          std::memcpy(grad.data() + slot.offset, computed.data_ptr<float>(),
                      slot.count * sizeof(float));
        } else {
          view_of(grad.data(), slot).copy_(computed);
        }
        parameters_[i].mutable_grad().reset();
      }
      return loss.item<double>();
    });
  }

  Evaluation evaluate(std::span<const float> params, const Batch& data) override {
    check_floats("evaluate: params", params.size());
    check_batch("evaluate", data);
    return without_backtrace([&] {
      bind_parameters(params.data());
      set_training(false);
      torch::NoGradGuard no_grad;
      double loss_sum = 0;
      int64_t correct = 0;
      for (int64_t first = 0; first < data.size; first += kEvaluationChunk) {
        const int64_t count = std::min(kEvaluationChunk, data.size - first);
        const auto logits = forward(data, first, count);
        const auto truth = labels(data, first, count);
        loss_sum += torch::cross_entropy_loss(logits, truth, {}, at::Reduction::Sum).item<double>();
        correct += logits.argmax(1).eq(truth).sum().item<int64_t>();
      }
      const auto samples = static_cast<double>(data.size);
      return Evaluation{static_cast<double>(correct) / samples, loss_sum / samples};
    });
  }

  double flops_per_sample() const override { return flops_per_sample_; }

 private:
  // Runs one sample through the module, checking the logits' shape and counting the work.
  double probe_forward_flops() {
    torch::NoGradGuard no_grad;
    set_training(false);  // a probe must not move a custom module's running statistics
    ForwardFlopCounter counter;
    const std::vector<int64_t> shape{1, input_.channels, input_.height, input_.width};
    const std::string forward_on =
        "model '" + name_ + "': forward on an input of shape " + shape_text(shape);
    torch::Tensor logits;
    try {
      logits = module_.forward<torch::Tensor>(torch::zeros(shape));
    } catch (const c10::Error& error) {  // a model that does not fit the data set's images
      throw std::invalid_argument(forward_on +
                                  " failed in libtorch: " + error.what_without_backtrace());
    }
    if (logits.dim() != 2 || logits.size(0) != 1 || logits.size(1) != classes_) {
      throw std::invalid_argument(forward_on + " returned logits of shape " +
                                  shape_text(logits.sizes()) + ", expected [1, " +
                                  std::to_string(classes_) + "]");
    }
    return counter.flops();
  }

  // Points every parameter at its slot of `params`, unless it points there already.
  void bind_parameters(const float* params) {
    if (params == bound_params_) return;
    for (size_t i = 0; i < parameters_.size(); ++i) {
      parameters_[i].set_data(view_of(params, layout_.tensors()[i]));
    }
    bound_params_ = params;
  }

  void set_training(bool training) {
    if (training == training_) return;
    module_.ptr()->train(training);
    training_ = training;
  }

  torch::Tensor forward(const Batch& batch, int64_t first, int64_t count) {
    // A view of the caller's inputs, read only.
    const auto images = torch::from_blob(const_cast<float*>(batch.inputs) + first * input_.floats(),
                                         {count, input_.channels, input_.height, input_.width});
    return module_.forward<torch::Tensor>(images);
  }

  static torch::Tensor labels(const Batch& batch, int64_t first, int64_t count) {
    return torch::from_blob(const_cast<int64_t*>(batch.labels) + first, {count}, torch::kLong);
  }

  void check_floats(const char* what, size_t given) const {
    if (given != layout_.size()) {
      throw std::invalid_argument("model '" + name_ + "': " + what + " has " +
                                  std::to_string(given) + " floats; the model has " +
                                  std::to_string(layout_.size()) + " parameters");
    }
  }

  void check_batch(const char* what, const Batch& batch) const {
    if (batch.size <= 0 || batch.inputs == nullptr || batch.labels == nullptr) {
      throw std::invalid_argument(
          "model '" + name_ + "': " + what +
          " needs a batch of at least 1 sample with inputs and labels, got size " +
          std::to_string(batch.size));
    }
    for (int64_t i = 0; i < batch.size; ++i) {
      if (batch.labels[i] < 0 || batch.labels[i] >= classes_) {
        throw std::invalid_argument("model '" + name_ + "': " + what + ": label " +
                                    std::to_string(batch.labels[i]) + " of sample " +
                                    std::to_string(i) + " is outside [0, " +
                                    std::to_string(classes_) + ")");
      }
    }
  }

  std::string name_;
  torch::nn::AnyModule module_;
  InputShape input_;
  int classes_;
  params::ParamLayout layout_;
  std::vector<torch::Tensor> parameters_;  // in layout order; views into the bound buffers
  std::vector<float> initial_;
  double flops_per_sample_ = 0;
  bool training_ = true;
  const float* bound_params_ = nullptr;
};

}  // namespace

std::unique_ptr<Learner> make_module_learner(std::string name, torch::nn::AnyModule module,
                                             const InputShape& input, int classes) {
  return std::make_unique<ModuleLearner>(std::move(name), std::move(module), input, classes);
}

}  // namespace hetps::model
