// Builds worker `id` of a run the same way on every engine: its share of the training set
// (`data.partition`), its sampler seed and its local optimizer, so that a worker meets the
// same batches whichever engine runs it.
#pragma once

#include <memory>

#include "config/config.h"
#include "data/dataset.h"
#include "model/learner.h"
#include "worker/worker.h"

namespace hetps::engine {

std::unique_ptr<worker::Worker> make_worker(const config::Config& config,
                                            const data::Dataset& train, int id,
                                            model::Learner& learner);

}  // namespace hetps::engine
