// The ping-pong through the mpi engine's own transport. Rank 0 is the server of a one-worker
// ASP run (a ServerLoop whose messages a ServerEndpoint carries), rank 1 its worker (a
// WorkerEndpoint). A round trip is what a worker does between two steps:
//   1. it pushes its update (WorkerEndpoint::push: header and payload, sent without waiting);
//   2. the server takes it (ServerEndpoint::serve_one: the header, then the payload straight
//      into the update pool's buffer);
//   3. ASP answers the worker's next pull (ServerEndpoint::send: the header and the model from
//      its snapshot);
//   4. the worker takes the reply into its model buffer (WorkerEndpoint::receive).
// Nothing is applied: the server optimizer's pass over the model is server compute, which
// BM_ServerApplyVsMemcpy measures; and a model that does not change lets every reply share one
// snapshot, so no copy is made either. What is timed is the transport alone.
#pragma once

#include <mpi.h>

#include <memory>

namespace hetps::bench {

class EngineExchange {
 public:
  virtual ~EngineExchange() = default;

  // This rank's end of a run over `comm` (exactly two ranks, a collective call) with a model
  // of `floats` floats. Returns once the worker holds the reply to its first pull.
  static std::unique_ptr<EngineExchange> start(MPI_Comm comm, size_t floats);

  // `rounds` round trips. Returns the seconds the worker measured, on both ranks.
  virtual double round_trips(int rounds) = 0;
  // Ends the run as the engine does (the server's kStop, the worker's kGoodbye), so that every
  // send on either side completes.
  virtual void end() = 0;
};

}  // namespace hetps::bench
