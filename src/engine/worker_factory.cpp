#include "engine/worker_factory.h"

#include <fmt/format.h>

#include "data/partition.h"

namespace hetps::engine {

std::shared_ptr<const worker::Partition> make_partition(const config::Config& config,
                                                        const data::Dataset& train) {
  return std::make_shared<const worker::Partition>(
      data::partition_samples(train.labels, train.classes, config.cluster.workers,
                              config.data.partition, config.data.classes_per_worker, config.seed));
}

std::optional<std::string> short_shares_warning(const worker::Partition& partition,
                                                int batch_size) {
  int short_shares = 0;
  size_t smallest = 0;
  for (size_t w = 0; w < partition.size(); ++w) {
    if (partition[w].size() >= static_cast<size_t>(batch_size)) continue;
    if (short_shares++ == 0 || partition[w].size() < partition[smallest].size()) smallest = w;
  }
  if (short_shares == 0) return std::nullopt;
  return fmt::format(
      "{} of {} workers hold fewer training samples than a batch (data.batch_size = {}; worker "
      "{} holds {}): each of their batches repeats samples. Fewer workers, a smaller batch or a "
      "larger data set avoid it",
      short_shares, partition.size(), batch_size, smallest, partition[smallest].size());
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
