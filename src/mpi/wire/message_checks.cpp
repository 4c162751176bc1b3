#include "mpi/wire/message_checks.h"

#include <fmt/format.h>

#include "mpi/wire/message_error.h"

namespace hetps::mpi {

size_t elements_in(size_t bytes, size_t element_bytes, int sender, std::string_view what) {
  if (bytes % element_bytes != 0) {
    throw MessageError(sender, fmt::format("{} as {} bytes, not a whole number of {}-byte elements",
                                           what, bytes, element_bytes));
  }
  return bytes / element_bytes;
}

void check_length(size_t elements, size_t expected, int sender, std::string_view what) {
  if (elements != expected) {
    throw MessageError(sender,
                       fmt::format("{} as {} elements, expected {}", what, elements, expected));
  }
}

void check_worker_ids(std::span<const int> ids, int workers, int sender, std::string_view what) {
  for (const int id : ids) {
    if (id < 0 || id >= workers) {
      throw MessageError(sender, fmt::format("{} naming worker {}, expected a worker id 0 to {}",
                                             what, id, workers - 1));
    }
  }
}

void check_sparse_slice(std::span<const uint32_t> indices, size_t values,
                        const params::KeyRange& keys, int sender) {
  constexpr std::string_view kWhat = "the kept entries of a compressed update";
  check_length(values, indices.size(), sender, kWhat);
  for (size_t k = 0; k < indices.size(); ++k) {
    if (indices[k] < keys.begin || indices[k] >= keys.end ||
        (k > 0 && indices[k] <= indices[k - 1])) {
      throw MessageError(sender, fmt::format("{} with key {} at entry {}, expected keys in "
                                             "[{}, {}), ascending",
                                             kWhat, indices[k], k, keys.begin, keys.end));
    }
  }
}

}  // namespace hetps::mpi
