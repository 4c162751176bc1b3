#include "engine/worker_factory.h"

#include "data/partition.h"

namespace hetps::engine {

std::unique_ptr<worker::Worker> make_worker(const config::Config& config,
                                            const data::Dataset& train, int id,
                                            model::Learner& learner) {
  auto partition =
      data::partition_samples(train.labels, train.classes, config.cluster.workers,
                              config.data.partition, config.data.classes_per_worker, config.seed);
  const worker::WorkerOptions options{config.data.batch_size,
                                      config.train.momentum,
                                      {config.train.nesterov, config.train.weight_decay}};
  return std::make_unique<worker::Worker>(id, learner, train, std::move(partition), config.seed,
                                          options);
}

}  // namespace hetps::engine
