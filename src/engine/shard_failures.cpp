#include "engine/shard_failures.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

namespace hetps::engine {

ShardCrashed::ShardCrashed(int shard, double time)
    : ShardCrashed(shard, time,
                   fmt::format("server shard {} crashed at {:.3f} s of run time "
                               "(cluster.shard_failures)",
                               shard, time)) {}

ShardFailures::ShardFailures(const config::ClusterConfig& cluster)
    : ahead_(cluster.shard_failures) {
  std::ranges::sort(ahead_, std::ranges::greater{}, &config::ShardFailure::time);
}

void ShardFailures::skip(const std::vector<int>& shards) {
  std::erase_if(ahead_, [&shards](const config::ShardFailure& failure) {
    return std::ranges::find(shards, failure.shard) != shards.end();
  });
}

double ShardFailures::next() const {
  return ahead_.empty() ? std::numeric_limits<double>::infinity() : ahead_.back().time;
}

const config::ShardFailure* ShardFailures::due(double time) const {
  return !ahead_.empty() && ahead_.back().time <= time ? &ahead_.back() : nullptr;
}

}  // namespace hetps::engine
