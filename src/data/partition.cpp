#include "data/partition.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>

#include "data/random.h"

namespace hetps::data {
namespace {

using Shards = std::vector<std::vector<int64_t>>;

// Stream ids under the partition seed.
constexpr uint64_t kIidStream = 1;
constexpr uint64_t kClassOrderStream = 2;
constexpr uint64_t kClassSamplesStream = 3;

void check_arguments(const std::vector<int64_t>& labels, int classes, int workers) {
  if (workers < 1) {
    throw std::invalid_argument(
        fmt::format("cluster.workers = {}: need at least 1 worker", workers));
  }
  if (static_cast<size_t>(workers) > labels.size()) {
    throw std::invalid_argument(fmt::format(
        "cluster.workers = {} exceeds the {} training samples: every worker needs at least one",
        workers, labels.size()));
  }
  for (size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] < 0 || labels[i] >= classes) {
      throw std::invalid_argument(
          fmt::format("label {} of sample {} is outside 0..{}", labels[i], i, classes - 1));
    }
  }
}

Shards deal_iid(size_t samples, int workers, uint64_t seed) {
  std::vector<int64_t> order(samples);
  std::iota(order.begin(), order.end(), int64_t{0});
  std::mt19937_64 rng(derive_seed(seed, SeedDomain::kPartition, {kIidStream}));
  shuffle(order, rng);
  Shards shards(static_cast<size_t>(workers));
  for (size_t i = 0; i < order.size(); ++i) shards[i % shards.size()].push_back(order[i]);
  return shards;
}

// holders[k]: the workers holding class k, ascending.
std::vector<std::vector<int>> assign_classes(int classes, int workers, int classes_per_worker,
                                             uint64_t seed) {
  const int held = classes_held(classes, workers, classes_per_worker);
  std::vector<int64_t> class_order(static_cast<size_t>(classes));
  std::iota(class_order.begin(), class_order.end(), int64_t{0});
  std::mt19937_64 rng(derive_seed(seed, SeedDomain::kPartition, {kClassOrderStream}));
  shuffle(class_order, rng);
  std::vector<std::vector<int>> holders(static_cast<size_t>(classes));
  for (int w = 0; w < workers; ++w) {
    for (int j = 0; j < held; ++j) {
      const size_t slot = (static_cast<size_t>(w) * held + j) % class_order.size();
      holders[class_order[slot]].push_back(w);
    }
  }
  return holders;
}

// Moves one sample from the largest shard into each empty one. With workers <= samples an empty
// shard implies a shard of two or more, so this always succeeds.
void fill_empty_shards(Shards& shards) {
  for (auto& shard : shards) {
    if (!shard.empty()) continue;
    auto largest = std::max_element(shards.begin(), shards.end(), [](const auto& a, const auto& b) {
      return a.size() < b.size();
    });
    shard.push_back(largest->back());
    largest->pop_back();
  }
}

Shards deal_label_skewed(const std::vector<int64_t>& labels, int classes, int workers,
                         int classes_per_worker, uint64_t seed) {
  std::vector<std::vector<int64_t>> by_class(static_cast<size_t>(classes));
  for (size_t i = 0; i < labels.size(); ++i) by_class[labels[i]].push_back(static_cast<int64_t>(i));

  const auto holders = assign_classes(classes, workers, classes_per_worker, seed);
  Shards shards(static_cast<size_t>(workers));
  for (size_t k = 0; k < by_class.size(); ++k) {
    std::vector<int64_t>& samples = by_class[k];
    std::mt19937_64 rng(derive_seed(seed, SeedDomain::kPartition, {kClassSamplesStream, k}));
    shuffle(samples, rng);
    // Near-equal contiguous chunks; the first `samples % holders` holders take one extra.
    const size_t h = holders[k].size();
    size_t begin = 0;
    for (size_t j = 0; j < h; ++j) {
      const size_t count = samples.size() / h + (j < samples.size() % h ? 1 : 0);
      auto& shard = shards[holders[k][j]];
      shard.insert(shard.end(), samples.begin() + begin, samples.begin() + begin + count);
      begin += count;
    }
  }
  fill_empty_shards(shards);
  return shards;
}

}  // namespace

int classes_held(int classes, int workers, int classes_per_worker) {
  return std::max(classes_per_worker, (classes + workers - 1) / workers);
}

std::optional<std::string> raised_classes_warning(int classes, int workers, const std::string& mode,
                                                  int classes_per_worker) {
  const int held = classes_held(classes, workers, classes_per_worker);
  if (mode != "noniid" || held == classes_per_worker) return std::nullopt;
  return fmt::format(
      "data.classes_per_worker = {} with {} workers would leave {} of the {} classes to no "
      "worker: each worker holds {} classes instead (ceil({} / {})), so that every class is "
      "trained on",
      classes_per_worker, workers, classes - classes_per_worker * workers, classes, held, classes,
      workers);
}

Shards partition_samples(const std::vector<int64_t>& labels, int classes, int workers,
                         const std::string& mode, int classes_per_worker, uint64_t seed) {
  if (mode != "iid" && mode != "noniid") {
    throw std::invalid_argument(
        fmt::format("data.partition = '{}' is not a partition mode; allowed: iid, noniid", mode));
  }
  if (mode == "noniid" && (classes_per_worker < 1 || classes_per_worker > classes)) {
    throw std::invalid_argument(fmt::format(
        "data.classes_per_worker = {} is out of range; allowed: 1..{} (the number of classes)",
        classes_per_worker, classes));
  }
  check_arguments(labels, classes, workers);
  Shards shards = mode == "iid"
                      ? deal_iid(labels.size(), workers, seed)
                      : deal_label_skewed(labels, classes, workers, classes_per_worker, seed);
  for (auto& shard : shards) std::sort(shard.begin(), shard.end());
  return shards;
}

}  // namespace hetps::data
