// Registers "tinycnn" and trains it for a few steps through hetps's flat-buffer Learner on one
// random batch: the printed loss falls as the model memorizes the batch. Exits 1 if it does not,
// so the example doubles as a test (scripts/test-custom-model.sh).
#include <fmt/core.h>

#include <cstdio>
#include <random>
#include <vector>

#include "model/learner.h"
#include "tiny_cnn.h"

int main() {
  custom_model::register_tiny_cnn();

  const hetps::model::InputShape input{1, 28, 28};
  const int classes = 10;
  auto learner = hetps::model::make_learner("tinycnn", input, classes, /*seed=*/1);
  fmt::print("tinycnn: {} parameters, {:.0f} FLOPs per sample (forward + backward)\n",
             learner->layout().size(), learner->flops_per_sample());

  const int64_t batch_size = 32;
  std::mt19937 random(7);
  std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
  std::uniform_int_distribution<int64_t> label(0, classes - 1);
  std::vector<float> images(static_cast<size_t>(batch_size * input.floats()));
  std::vector<int64_t> labels(static_cast<size_t>(batch_size));
  for (auto& value : images) value = pixel(random);
  for (auto& value : labels) value = label(random);
  const hetps::model::Batch batch{images.data(), labels.data(), batch_size};

  std::vector<float> weights(learner->layout().size());
  std::vector<float> grad(weights.size());
  learner->initial_parameters(weights);
  const float lr = 0.05f;
  const double first_loss = learner->evaluate(weights, batch).loss;
  for (int step = 0; step < 20; ++step) {
    const double loss = learner->gradient(weights, batch, grad);
    if (step % 4 == 0) fmt::print("step {:2d}  loss {:.4f}\n", step, loss);
    for (size_t i = 0; i < weights.size(); ++i) weights[i] -= lr * grad[i];
  }
  const double last_loss = learner->evaluate(weights, batch).loss;
  fmt::print("after 20 steps: loss {:.4f}\n", last_loss);
  if (!(last_loss < first_loss)) {
    fmt::print(stderr, "the loss did not fall: {:.4f} before, {:.4f} after\n", first_loss,
               last_loss);
    return 1;
  }
}
