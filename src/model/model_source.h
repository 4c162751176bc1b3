// The engines' view of the models of one run (engine::ModelSource): learners made by name for
// the run's data, and the process's compute thread pools set the way libtorch and OpenBLAS
// want it.
#pragma once

#include "config/config.h"
#include "data/dataset.h"
#include "engine/engine.h"

namespace hetps::model {

// Learners of `config.model.name` for inputs shaped like `train`, seeded with `config.seed`.
engine::ModelSource model_source(const config::Config& config, const data::Dataset& train);

// Sets libtorch's intra-op threads and, when the BLAS is OpenBLAS, its thread pool (Debian's
// pthreads build runs its own pool inside every call, whatever libtorch is told).
void set_compute_threads(int threads);

}  // namespace hetps::model
