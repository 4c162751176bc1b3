#include <ATen/CPUGeneratorImpl.h>

#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "model/models.h"
#include "model/module_learner.h"
#include "model/register.h"

namespace hetps::model {
namespace {

// The built-ins are listed, not self-registered from static initializers: they are then there
// whatever the link flags, and before any user registration, whatever the initialization order.
struct Registry {
  std::mutex mutex;
  std::map<std::string, ModuleFactory> factories = builtin_models();
};

Registry& registry() {
  static Registry instance;
  return instance;
}

std::vector<std::string> names_of(const std::map<std::string, ModuleFactory>& factories) {
  std::vector<std::string> names;
  for (const auto& entry : factories) names.push_back(entry.first);
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

ModuleFactory factory_for(const std::string& name) {
  Registry& models = registry();
  std::lock_guard lock(models.mutex);
  const auto found = models.factories.find(name);
  if (found == models.factories.end()) {
    throw std::invalid_argument("unknown model '" + name + "'; the registered models are: " +
                                joined(names_of(models.factories)));
  }
  return found->second;
}

void check_shape(const std::string& name, const InputShape& input, int classes) {
  if (input.channels < 1 || input.height < 1 || input.width < 1) {
    throw std::invalid_argument("model '" + name + "': the input shape " +
                                std::to_string(input.channels) + "×" +
                                std::to_string(input.height) + "×" + std::to_string(input.width) +
                                " must be positive in every dimension");
  }
  if (classes < 2) {
    throw std::invalid_argument("model '" + name + "': classes must be at least 2, got " +
                                std::to_string(classes));
  }
}

// Modules draw their initial weights from libtorch's default CPU generator. Seeding it for one
// construction and restoring its state afterwards makes a model's initial weights a function of
// its seed alone, whatever used the generator before, and leaves the generator's sequence as it
// was for everyone else.
class SeededDefaultGenerator {
 public:
  explicit SeededDefaultGenerator(uint64_t seed)
      : generator_(at::detail::getDefaultCPUGenerator()) {
    std::lock_guard lock(generator_.mutex());
    saved_state_ = generator_.get_state();
    generator_.set_current_seed(seed);
  }
  ~SeededDefaultGenerator() {
    std::lock_guard lock(generator_.mutex());
    generator_.set_state(saved_state_);
  }
  SeededDefaultGenerator(const SeededDefaultGenerator&) = delete;
  SeededDefaultGenerator& operator=(const SeededDefaultGenerator&) = delete;

 private:
  at::Generator generator_;
  at::Tensor saved_state_;
};

}  // namespace

void register_model_factory(std::string name, ModuleFactory factory) {
  if (name.empty()) throw std::invalid_argument("register_model: the model name is empty");
  if (!factory) {
    throw std::invalid_argument("register_model: the factory for model '" + name + "' is empty");
  }
  Registry& models = registry();
  std::lock_guard lock(models.mutex);
  if (!models.factories.try_emplace(name, std::move(factory)).second) {
    throw std::invalid_argument("register_model: a model named '" + name +
                                "' is already registered");
  }
}

std::vector<std::string> model_names() {
  Registry& models = registry();
  std::lock_guard lock(models.mutex);
  return names_of(models.factories);
}

torch::nn::AnyModule make_module(const std::string& name, const InputShape& input, int classes,
                                 uint64_t seed) {
  check_shape(name, input, classes);
  const ModuleFactory factory = factory_for(name);
  // One seeded construction at a time: the default generator is shared.
  static std::mutex construction;
  std::lock_guard lock(construction);
  SeededDefaultGenerator seeded(seed);
  return factory(input, classes);
}

std::unique_ptr<Learner> make_learner(const std::string& name, const InputShape& input, int classes,
                                      uint64_t seed) {
  return make_module_learner(name, make_module(name, input, classes, seed), input, classes);
}

}  // namespace hetps::model
