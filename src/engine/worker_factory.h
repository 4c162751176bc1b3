// Builds the workers of a run the same way on every engine: their shares of the training set
// (`data.partition`, computed once per run and shared), their sampler seeds and their local
// optimizers, so that a worker meets the same batches whichever engine runs it.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "config/config.h"
#include "data/dataset.h"
#include "model/learner.h"
#include "worker/worker.h"

namespace hetps::engine {

std::shared_ptr<const worker::Partition> make_partition(const config::Config& config,
                                                        const data::Dataset& train);

// A warning when a worker's share of `partition` holds fewer samples than a batch of
// `batch_size`: its every batch then repeats samples (the sampler runs on into the next epoch's
// order). Nothing when every share holds a batch.
std::optional<std::string> short_shares_warning(const worker::Partition& partition, int batch_size);

// Worker `id`, training on its share of `partition` (make_partition's).
std::unique_ptr<worker::Worker> make_worker(const config::Config& config,
                                            const data::Dataset& train,
                                            std::shared_ptr<const worker::Partition> partition,
                                            int id, model::Learner& learner);

}  // namespace hetps::engine
