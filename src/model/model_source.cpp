#include "model/model_source.h"

#include <ATen/Parallel.h>
#include <dlfcn.h>

#include "model/learner.h"

namespace hetps::model {

engine::ModelSource model_source(const config::Config& config, const data::Dataset& train) {
  const InputShape input{train.channels, train.height, train.width};
  return {[name = config.model.name, input, classes = train.classes, seed = config.seed] {
            return make_learner(name, input, classes, seed);
          },
          set_compute_threads};
}

void set_compute_threads(int threads) {
  at::set_num_threads(threads);
  // Looked up at run time: libtorch reaches the BLAS through Debian's alternatives, which may
  // point at a BLAS without this function.
  using SetThreads = void (*)(int);
  if (auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
    set(threads);
  }
}

}  // namespace hetps::model
