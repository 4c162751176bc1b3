// Checkpoints of an mpi run (issue 9), by the same consistent cut as the threads engine
// (engine/server_loop.h, "Checkpoints"): rank 0 drains, holding back every pull reply, until
// every worker rests (waits for a reply, or is gone, or went silent at its hang). Then, with
// the clock standing on every rank as for an evaluation:
//   1. rank 0 asks every worker rank for its state (kStateRequest), which each answers where it
//      waits (kWorkerState, CBOR): its trainer, its loop's count of pushes, its injected delays
//      and its activity timeline; with several server shards, it asks every other shard rank
//      too (a SaveState order, ShardPeers), which answers once it holds the slices of the
//      updates rank 0 holds: its parameter server and those slices;
//   2. rank 0 hands the engine state — its loop's (the server state, the held replies, who owes
//      what), every worker's and every shard's — to RunCheckpoints::save, which alone writes the
//      file: only rank 0 writes the run directory;
//   3. the clock runs on and the held replies leave.
// Resume: rank 0 alone reads the checkpoint (`hetps train --resume DIR` on every rank reads only
// DIR/config.toml). It tells every rank whether the run resumes before the ranks set up their
// injected delays (a resumed run's calibrated step is the one saved), sends each worker and
// shard rank its state and the time the run resumes at (kResumeState), and all clocks start at
// that time. A worker whose injected failure came before it stays gone or silent.
// A rank that dies (SIGKILL, a lost host) ends the whole `mpirun` job: Debian's OpenMPI has no
// fault-tolerant MPI. The job is then started again with `--resume` (docs/mpi.md).
#pragma once

#include <mpi.h>

#include <functional>

#include <nlohmann/json.hpp>

#include "engine/checkpoint_schedule.h"
#include "engine/run_checkpoints.h"
#include "engine/server_loop.h"
#include "mpi/patient_wait.h"
#include "mpi/rank_layout.h"
#include "mpi/rank_setup.h"
#include "mpi/run_clock.h"
#include "mpi/server_endpoint.h"
#include "mpi/shard_peers.h"

namespace hetps::mpi {

// Whether the run resumes from a checkpoint, as rank 0 (`resumed`: whether it was given one)
// tells every rank; a collective of `comm`, given up after `patience`.
bool share_whether_resumed(bool resumed, MPI_Comm comm, const RankLayout& layout,
                           Patience patience);

// A worker or shard rank's start: when the run resumes (RankSetup::resumed), waits for this
// rank's part of the checkpoint from rank 0 (given up after run.start_timeout_s) and hands its
// state to `restore`; then starts `clock` with every rank (RunClock::start) at the time the run
// resumes at, which it returns (0 for a new run). Throws MessageError naming rank 0 when what
// came is not a rank's part.
double start_rank(const RankSetup& setup, RunClock& clock,
                  const std::function<void(const nlohmann::json& state)>& restore);

// Rank 0's side: takes the checkpoints `schedule` makes due, as above.
class RankCheckpointer : public engine::ServerLoop::Checkpointer {
 public:
  // `wall_seconds` gives the run's wall time so far, resumed runs' included.
  // `peers`: the other server shards, or null.
  RankCheckpointer(const engine::RunCheckpoints& checkpoints, engine::CheckpointSchedule& schedule,
                   ServerEndpoint& endpoint, ShardPeers* peers, RunClock& clock, double patience,
                   std::function<double()> wall_seconds)
      : checkpoints_(checkpoints),
        schedule_(schedule),
        endpoint_(endpoint),
        peers_(peers),
        clock_(clock),
        patience_(patience),
        wall_seconds_(std::move(wall_seconds)) {}

  engine::CheckpointSchedule& schedule() override { return schedule_; }
  bool take(engine::ServerLoop& loop) override;

  // Rank 0 of a resumed run, before the start barrier: restores `loop` and the schedule from
  // `state` (as `take` saved it), sends every worker and shard rank its part, and returns the
  // time the run resumes at and the wall seconds it had run. Throws checkpoint::CheckpointError
  // naming what does not fit.
  struct Resumed {
    double time = 0;
    double wall_seconds = 0;
  };
  Resumed resume(const nlohmann::json& state, engine::ServerLoop& loop, int workers);

 private:
  const engine::RunCheckpoints& checkpoints_;
  engine::CheckpointSchedule& schedule_;
  ServerEndpoint& endpoint_;
  ShardPeers* peers_;
  RunClock& clock_;
  double patience_;
  std::function<double()> wall_seconds_;
};

}  // namespace hetps::mpi
