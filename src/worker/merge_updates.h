// A community leader's merge (protocol.h, "Leaders"): the one update it pushes for itself and
// its members is the sample-weighted mean of theirs. Every engine merges with this function, so
// a community round ends on the same bits everywhere; with equal batches it is exactly the mean
// the server takes of a BSP round (same weights, same order: server::weighted_sum).
#pragma once

#include <span>
#include <vector>

#include "protocol/protocol.h"

namespace hetps::worker {

struct Contribution {
  protocol::UpdateInfo info;
  const float* update = nullptr;  // a whole flat update
};

// Writes Σ_k (samples_k / Σ samples)·update_k into `out`, summed in ascending worker id, and
// returns the merged update's info: the leader's (the first contribution's) with samples and
// steps summed, the training loss weighted by samples, the longest compute time, `members` the
// others' ids and `merged_step_seconds` everyone's compute seconds per step. `out` may be one of
// the contributions' buffers. Throws
// std::invalid_argument when there is nothing to merge or no samples.
protocol::UpdateInfo merge_updates(std::vector<Contribution> contributions, std::span<float> out);

}  // namespace hetps::worker
