#include "bench/mpi_transport/raw_ping_pong.h"

#include "mpi/messages.h"

namespace hetps::bench {
namespace {

constexpr int kPing = 1;
constexpr int kPong = 2;

}  // namespace

RawPingPong::RawPingPong(MPI_Comm comm, size_t floats)
    : comm_(comm), outgoing_(floats), incoming_(floats) {}

double RawPingPong::round_trips(int rounds) {
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  const int count = mpi::element_count(outgoing_.size());
  const int peer = 1 - rank;
  const double begin = MPI_Wtime();
  for (int round = 0; round < rounds; ++round) {
    if (rank == 0) {
      MPI_Send(outgoing_.data(), count, MPI_FLOAT, peer, kPing, comm_);
      MPI_Recv(incoming_.data(), count, MPI_FLOAT, peer, kPong, comm_, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(incoming_.data(), count, MPI_FLOAT, peer, kPing, comm_, MPI_STATUS_IGNORE);
      MPI_Send(outgoing_.data(), count, MPI_FLOAT, peer, kPong, comm_);
    }
  }
  double seconds = MPI_Wtime() - begin;
  MPI_Bcast(&seconds, 1, MPI_DOUBLE, 0, comm_);
  return seconds;
}

}  // namespace hetps::bench
