#include "mpi/sparse_wire.h"

#include "mpi/messages.h"
#include "mpi/patient_wait.h"

namespace hetps::mpi {

std::array<MPI_Request, 2> post_sparse_slice(engine::SparseSlice slice, int to, MPI_Comm comm) {
  std::array<MPI_Request, 2> requests;
  MPI_Isend(slice.indices.data(), element_count(slice.indices.size()), MPI_UINT32_T, to,
            kSparseIndices, comm, &requests[0]);
  requests[1] = post_floats(slice.values, to, kSparseValues, comm);
  return requests;
}

engine::SparseSlice SparseSliceReceiver::take(int from, MPI_Comm comm) {
  const MPI_Status announced = wait_for_message(comm, from, kSparseIndices);
  int entries = 0;
  MPI_Get_count(&announced, MPI_UINT32_T, &entries);
  indices_.resize(static_cast<size_t>(entries));
  values_.resize(static_cast<size_t>(entries));
  std::array<MPI_Request, 2> requests;
  MPI_Irecv(indices_.data(), entries, MPI_UINT32_T, from, kSparseIndices, comm, &requests[0]);
  requests[1] = post_receive_floats(values_, from, kSparseValues, comm);
  wait_for_all(requests);
  return {indices_, values_};
}

}  // namespace hetps::mpi
