// Builds the workers of a run the same way on every engine: their shares of the training set
// (`data.partition`, computed once per run and shared), their sampler seeds and their local
// optimizers, so that a worker meets the same batches whichever engine runs it.
#pragma once

#include <memory>

#include "config/config.h"
#include "data/dataset.h"
#include "model/learner.h"
#include "worker/worker.h"

namespace hetps::engine {

std::shared_ptr<const worker::Partition> make_partition(const config::Config& config,
                                                        const data::Dataset& train);

// Worker `id`, training on its share of `partition` (make_partition's).
std::unique_ptr<worker::Worker> make_worker(const config::Config& config,
                                            const data::Dataset& train,
                                            std::shared_ptr<const worker::Partition> partition,
                                            int id, model::Learner& learner);

}  // namespace hetps::engine
