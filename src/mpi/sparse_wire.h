// The sparse wire form of a top-k compressed push (spec/ashl.md; engine/sparse_push.h): after
// the update's header (UpdateHeader::compressed()), each server shard rank gets the kept
// entries of its own key range as two messages, kSparseIndices (the model keys, ascending,
// 32 bits each) and kSparseValues (the values, floats), 8 bytes an entry as the run log counts
// them; a range without entries gets two empty messages. The shard writes them into its range
// of the update's whole-model buffer with zeros elsewhere (engine::expand_into).
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <vector>

#include "engine/sparse_push.h"

namespace hetps::mpi {

// Starts sending `slice` to rank `to`; what it views must stay alive until both requests
// complete.
std::array<MPI_Request, 2> post_sparse_slice(engine::SparseSlice slice, int to, MPI_Comm comm);

// Takes the slices ranks send, into buffers reused from one to the next.
class SparseSliceReceiver {
 public:
  // Takes the slice `from` sends next for `keys` (its header already taken). Throws
  // MessageError naming `from` unless its indices are keys of `keys`, ascending, and as many
  // as its values. The view is valid until the next call.
  engine::SparseSlice take(int from, const params::KeyRange& keys, MPI_Comm comm);

 private:
  std::vector<uint32_t> indices_;
  std::vector<float> values_;
};

}  // namespace hetps::mpi
