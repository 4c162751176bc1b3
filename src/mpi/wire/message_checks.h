// What a rank checks of a message from another before it uses any of it: its length against
// what its tag and the header before it promise, and the worker ids it carries against the run.
// Each check throws MessageError naming the sender and what it sent (`what`: "the update
// members", ...).
//
//   const size_t ids = elements_in(bytes, sizeof(int), rank, "the update members");
//   check_length(ids, header.members, rank, "the update members");
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "params/layout.h"

namespace hetps::mpi {

// How many elements of `element_bytes` each a message of `bytes` bytes holds; throws unless it
// holds a whole number of them.
size_t elements_in(size_t bytes, size_t element_bytes, int sender, std::string_view what);

// Throws unless the message holds exactly `expected` elements.
void check_length(size_t elements, size_t expected, int sender, std::string_view what);

// Throws unless every id is a worker's: 0 to `workers` − 1.
void check_worker_ids(std::span<const int> ids, int workers, int sender, std::string_view what);

// Throws unless the indices of a compressed update's slice (sparse_wire.h) are keys of `keys`,
// ascending, and as many as its values.
void check_sparse_slice(std::span<const uint32_t> indices, size_t values,
                        const params::KeyRange& keys, int sender);

}  // namespace hetps::mpi
