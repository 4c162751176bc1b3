#include "engine/worker_factory.h"

#include "data/partition.h"

namespace hetps::engine {

std::shared_ptr<const worker::Partition> make_partition(const config::Config& config,
                                                        const data::Dataset& train) {
  return std::make_shared<const worker::Partition>(
      data::partition_samples(train.labels, train.classes, config.cluster.workers,
                              config.data.partition, config.data.classes_per_worker, config.seed));
}

std::unique_ptr<worker::Worker> make_worker(const config::Config& config,
                                            const data::Dataset& train,
                                            std::shared_ptr<const worker::Partition> partition,
                                            int id, model::Learner& learner) {
  const worker::WorkerOptions options{config.data.batch_size,
                                      config.train.momentum,
                                      {config.train.nesterov, config.train.weight_decay}};
  return std::make_unique<worker::Worker>(id, learner, train, std::move(partition), config.seed,
                                          options);
}

}  // namespace hetps::engine
