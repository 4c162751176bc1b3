// A per-worker list (`cluster.speeds`, `link_gbps`, `link_latency_ms`) shorter than the worker
// count is cycled over the workers: worker w takes entry w mod its length.
#pragma once

#include <cstddef>
#include <vector>

namespace hetps::cluster {

inline double cycled(const std::vector<double>& values, int worker) {
  return values[static_cast<size_t>(worker) % values.size()];
}

}  // namespace hetps::cluster
