#include "params/layout.h"

#include <cstring>
#include <stdexcept>
#include <string_view>

#include "params/fnv1a.h"

namespace hetps::params {

void ParamLayout::add(std::string name, std::vector<int64_t> shape) {
  size_t count = 1;
  for (int64_t dim : shape) {
    if (dim <= 0) throw std::invalid_argument("tensor '" + name + "' has a non-positive dimension");
    count *= static_cast<size_t>(dim);
  }
  tensors_.push_back(TensorSlot{std::move(name), std::move(shape), size_, count});
  size_ += count;
}

std::vector<KeyRange> ParamLayout::shard_ranges(size_t shards) const {
  if (shards == 0) throw std::invalid_argument("shard_ranges: shards must be at least 1");
  std::vector<KeyRange> ranges;
  ranges.reserve(shards);
  size_t base = size_ / shards;
  size_t remainder = size_ % shards;
  size_t begin = 0;
  for (size_t s = 0; s < shards; ++s) {
    size_t length = base + (s < remainder ? 1 : 0);
    ranges.push_back(KeyRange{begin, begin + length});
    begin += length;
  }
  return ranges;
}

uint64_t hash_parameters(std::span<const float> values) {
  return fnv1a(std::string_view(reinterpret_cast<const char*>(values.data()), values.size_bytes()));
}

}  // namespace hetps::params
