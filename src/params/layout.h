// The parameter layout: a model's named tensors laid end to end in one flat float buffer, and
// the key ranges that shard that buffer over the server shards.
//
//   ParamLayout layout;
//   layout.add("fc1.weight", {256, 784});
//   layout.add("fc1.bias", {256});
//   std::vector<float> params(layout.size());
//   auto shards = layout.shard_ranges(2);   // two contiguous key ranges covering [0, size)
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace hetps::params {

struct TensorSlot {
  std::string name;
  std::vector<int64_t> shape;
  size_t offset = 0;  // first float of this tensor in the flat buffer
  size_t count = 0;   // number of floats
};

// A half-open range [begin, end) of flat-buffer keys held by one server shard.
struct KeyRange {
  size_t begin = 0;
  size_t end = 0;
  size_t size() const { return end - begin; }
  bool operator==(const KeyRange&) const = default;
};

class ParamLayout {
 public:
  void add(std::string name, std::vector<int64_t> shape);

  size_t size() const { return size_; }
  size_t bytes() const { return size_ * sizeof(float); }
  const std::vector<TensorSlot>& tensors() const { return tensors_; }

  // Splits [0, size) into `shards` contiguous ranges of near-equal size (the first ranges take
  // the remainder). Ranges cut through tensors on purpose: equal shard sizes balance the
  // servers' links, and the flat buffer makes a cut tensor cost nothing.
  std::vector<KeyRange> shard_ranges(size_t shards) const;

 private:
  std::vector<TensorSlot> tensors_;
  size_t size_ = 0;
};

// A 64-bit FNV-1a hash of the parameter bytes: determinism is checked on bits.
uint64_t hash_parameters(std::span<const float> values);

}  // namespace hetps::params
