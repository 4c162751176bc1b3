#include "engine/sparse_push.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace hetps::engine {

SparseSlice slice_of(const worker::SparseDelta& delta, const params::KeyRange& keys) {
  const auto first = std::ranges::lower_bound(delta.indices, keys.begin);
  const auto last = std::lower_bound(first, delta.indices.end(), keys.end);
  const auto offset = static_cast<size_t>(first - delta.indices.begin());
  const auto count = static_cast<size_t>(last - first);
  return {std::span(delta.indices).subspan(offset, count),
          std::span(delta.values).subspan(offset, count)};
}

void expand_into(SparseSlice slice, const params::KeyRange& keys, std::span<float> whole) {
  if (slice.indices.size() != slice.values.size() || keys.end > whole.size()) {
    throw std::invalid_argument(
        fmt::format("a sparse slice of {} indices and {} values for keys [{}, {}) of a model of {}",
                    slice.indices.size(), slice.values.size(), keys.begin, keys.end, whole.size()));
  }
  const std::span<float> range = whole.subspan(keys.begin, keys.size());
  std::ranges::fill(range, 0.0f);
  for (size_t k = 0; k < slice.indices.size(); ++k) {
    const uint32_t index = slice.indices[k];
    if (index < keys.begin || index >= keys.end) {
      throw std::invalid_argument(fmt::format("a sparse slice for keys [{}, {}) holds key {}",
                                              keys.begin, keys.end, index));
    }
    whole[index] = slice.values[k];
  }
}

int64_t push_bytes(size_t model_floats, const worker::SparseDelta* sparse) {
  if (sparse != nullptr) return sparse->bytes();
  return static_cast<int64_t>(model_floats * sizeof(float));
}

std::vector<double> shard_bytes(const worker::SparseDelta& delta,
                                std::span<const params::KeyRange> shards) {
  std::vector<double> bytes;
  bytes.reserve(shards.size());
  for (const params::KeyRange& keys : shards) {
    bytes.push_back(static_cast<double>(slice_of(delta, keys).bytes()));
  }
  return bytes;
}

}  // namespace hetps::engine
