// The yardstick: a bare MPI ping-pong between ranks 0 and 1, blocking MPI_Send and MPI_Recv of
// a model-sized message each way, as any MPI code would move a model and an update.
#pragma once

#include <mpi.h>

#include <vector>

namespace hetps::bench {

class RawPingPong {
 public:
  // `comm` has exactly two ranks; every message carries `floats` floats.
  RawPingPong(MPI_Comm comm, size_t floats);

  // Rank 0 sends, rank 1 sends back, `rounds` times. Returns the seconds rank 0 measured, on
  // both ranks (a collective call).
  double round_trips(int rounds);

 private:
  MPI_Comm comm_;
  std::vector<float> outgoing_;
  std::vector<float> incoming_;
};

}  // namespace hetps::bench
