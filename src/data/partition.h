// How the training set is divided among the workers.
//
//   auto shards = partition_samples(train.labels, 10, 8, "noniid", 2, seed);
//   // shards[w]: the sample indices worker w trains on, ascending; together an exact cover.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hetps::data {

// The classes each worker holds under `noniid`: `classes_per_worker`, or ceil(classes /
// workers) where that is more (partition_samples).
int classes_held(int classes, int workers, int classes_per_worker);

// A warning when `noniid` raises `classes_per_worker` to cover the classes; nothing otherwise.
std::optional<std::string> raised_classes_warning(int classes, int workers, const std::string& mode,
                                                  int classes_per_worker);

// Splits the sample indices [0, labels.size()) among `workers`; every sample goes to exactly one
// worker and no worker is left empty.
//
// `iid`: a seeded shuffle dealt round-robin, so shard sizes differ by at most one.
// `noniid` (label skew): each worker holds `classes_per_worker` classes, dealt cyclically over a
//   seeded order of the classes so that every class is held once there are enough workers, and
//   each class's samples are shuffled and split evenly among the workers holding it. With too few
//   workers to cover the classes at `classes_per_worker` each, each worker holds
//   ceil(classes / workers) classes instead: dropping whole classes would change the task. In
//   the degenerate case of a class with fewer samples than holders, a worker left empty takes one
//   sample from the largest shard; no worker then holds more classes than it was dealt.
//
// Throws std::invalid_argument naming the setting: `data.partition` for an unknown mode,
// `data.classes_per_worker` outside 1..classes, `cluster.workers` below 1 or above the number
// of samples; and for a label outside 0..classes-1.
std::vector<std::vector<int64_t>> partition_samples(const std::vector<int64_t>& labels, int classes,
                                                    int workers, const std::string& mode,
                                                    int classes_per_worker, uint64_t seed);

}  // namespace hetps::data
