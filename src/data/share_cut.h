// Re-cutting the workers' sample partitions to data shares (spec/ashl.md, Algorithm 1: each
// worker trains on a share D[i] of the data proportional to its local steps).
//
//   auto shards = partition_samples(train.labels, 10, 4, "noniid", 2, seed);
//   shards = cut_to_shares(shards, plan.data_shares);  // sizes ≈ D[i] · samples, same samples
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace hetps::data {

// The shard sizes for `shares` of `total` samples: shares[i] · total rounded by largest
// remainder (each worker gets the floor, and the samples left over go one each to the largest
// fractional parts, the lower worker first on a tie), then every worker left with none takes
// one sample from the largest shard (the lower worker's on a tie). The shares are divided by
// their sum first, so that the sizes add up to `total` exactly. Throws std::invalid_argument
// for no shares, a share that is negative or not finite, shares whose sum is not 1 within
// 1e-9, or fewer samples than shares.
std::vector<int64_t> share_sizes(std::span<const double> shares, int64_t total);

// `shards` (one ascending list of sample indices per worker, as partition_samples returns)
// re-cut to share_sizes(shares, all their samples), moving the fewest samples: a worker that
// shrinks keeps all but its excess and gives that away, one that grows keeps all it had and
// receives the rest, so each sample moved is one that had to. A shrinking worker gives samples
// spread evenly over its list, not its highest indices, so that what it keeps (and what the
// receiver gets) resembles its whole shard: a label-skewed partition keeps its skew as well as
// the new sizes allow. The given samples, in order of giving worker and then position, fill the
// growing workers in worker order. Each new shard is ascending. Throws std::invalid_argument
// as share_sizes does, and for a count of shares other than of shards.
std::vector<std::vector<int64_t>> cut_to_shares(const std::vector<std::vector<int64_t>>& shards,
                                                std::span<const double> shares);

}  // namespace hetps::data
