// A learner's initial weights as one flat vector, for tests that compare models.
#pragma once

#include <vector>

#include "model/learner.h"

namespace hetps::testing {

inline std::vector<float> initial_parameters(const model::Learner& learner) {
  std::vector<float> weights(learner.layout().size());
  learner.initial_parameters(weights);
  return weights;
}

}  // namespace hetps::testing
