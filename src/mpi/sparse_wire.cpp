#include "mpi/sparse_wire.h"

#include "mpi/messages.h"
#include "mpi/patient_wait.h"
#include "mpi/wire/message_checks.h"

namespace hetps::mpi {

std::array<MPI_Request, 2> post_sparse_slice(engine::SparseSlice slice, int to, MPI_Comm comm) {
  std::array<MPI_Request, 2> requests;
  MPI_Isend(slice.indices.data(), element_count(slice.indices.size()), MPI_UINT32_T, to,
            kSparseIndices, comm, &requests[0]);
  requests[1] = post_floats(slice.values, to, kSparseValues, comm);
  return requests;
}

engine::SparseSlice SparseSliceReceiver::take(int from, const params::KeyRange& keys,
                                              MPI_Comm comm) {
  const MPI_Status announced = wait_for_message(comm, from, kSparseIndices);
  indices_.resize(elements_in(message_bytes(announced), sizeof(uint32_t), from,
                              "the indices of a compressed update"));
  MPI_Recv(indices_.data(), element_count(indices_.size()), MPI_UINT32_T, from, kSparseIndices,
           comm, MPI_STATUS_IGNORE);
  // Checked before the values are received: they are as many, or the message is refused.
  const MPI_Status values = wait_for_message(comm, from, kSparseValues);
  check_sparse_slice(
      indices_,
      elements_in(message_bytes(values), sizeof(float), from, "the values of a compressed update"),
      keys, from);
  values_.resize(indices_.size());
  MPI_Request request = post_receive_floats(values_, from, kSparseValues, comm);
  wait_for(request);
  return {indices_, values_};
}

}  // namespace hetps::mpi
