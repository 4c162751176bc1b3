// A top-k compressed push on the wire (worker::SparseDelta, spec/ashl.md): each server shard gets
// the kept entries of its own key range, as (index, value) pairs, 8 bytes each; a shard writes
// them into its range of a whole-model buffer with zeros elsewhere, so that the server merges
// exactly the dense delta the worker sent. A dense push carries its range's floats, 4 bytes
// each. Every engine counts a push's bytes with `push_bytes`.
//
//   for (const params::KeyRange& keys : shards) send(slice_of(sparse, keys));  // the worker
//   expand_into(received, keys, pool_buffer);                                   // a shard
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "params/layout.h"
#include "worker/top_k.h"

namespace hetps::engine {

// The entries of a sparse delta whose indices fall in one key range; a view into the delta.
struct SparseSlice {
  std::span<const uint32_t> indices;  // model keys, ascending
  std::span<const float> values;      // values[k] belongs at indices[k]

  int64_t bytes() const {
    return static_cast<int64_t>(indices.size()) * worker::SparseDelta::kBytesPerEntry;
  }
};

// The entries of `delta` in `keys` (indices ascend, so they lie side by side).
SparseSlice slice_of(const worker::SparseDelta& delta, const params::KeyRange& keys);

// Writes `slice` into the `keys` of `whole`, a whole-model buffer: each value at its index and
// zeros at every other key of the range (the buffer's other keys are left alone). Throws
// std::invalid_argument when the slice's indices and values differ in number, or an index lies
// outside `keys` or `whole`.
void expand_into(SparseSlice slice, const params::KeyRange& keys, std::span<float> whole);

// The bytes a push of a model of `model_floats` puts on the wire to the server shards, all
// together: the floats of a dense update, or `sparse->bytes()` for a compressed one (`sparse`
// null: dense).
int64_t push_bytes(size_t model_floats, const worker::SparseDelta* sparse);

// The bytes a compressed push carries to each of `shards`, in shard order.
std::vector<double> shard_bytes(const worker::SparseDelta& delta,
                                std::span<const params::KeyRange> shards);

}  // namespace hetps::engine
