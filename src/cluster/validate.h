// Checks a cluster configuration before anything is built from it.
#pragma once

#include "config/config.h"

namespace hetps::cluster {

// Throws std::invalid_argument at the first invalid field, naming its key (`cluster.speeds[2]`,
// `cluster.stragglers[0].worker`, ...), the value given and what is allowed. Every number must
// be finite; counts at least 1; speeds and rates (gbps, gflops) > 0; latencies and noise >= 0;
// lists of speeds and links non-empty; an episode's worker in [0, workers), start >= 0,
// duration > 0, slowdown >= 1; random episodes' rate >= 0, mean duration > 0,
// 1 <= slowdown_min <= slowdown_max; a failure's worker in [0, workers), each worker at most
// once, time >= 0, kind "crash" or "hang"; a shard failure's shard in [0, servers), each shard at
// most once, time >= 0.
void validate(const config::ClusterConfig& cluster);

}  // namespace hetps::cluster
