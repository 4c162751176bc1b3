// What every rank of an mpi run shares once it is set up: the run, its communicator, who is
// who, and the injected compute speeds (calibrated when any worker is padded).
#pragma once

#include <mpi.h>

#include <optional>

#include "config/config.h"
#include "data/dataset.h"
#include "engine/engine.h"
#include "engine/injected_delays.h"
#include "mpi/rank_layout.h"

namespace hetps::mpi {

struct RankSetup {
  const config::Config& config;
  const data::DataSplit& data;
  const engine::ModelSource& models;
  MPI_Comm comm;
  // Where shard ranks other than rank 0 send workers their slices of replies: apart from
  // `comm`, so that a worker looking for any message there never meets a slice before the
  // reply header from rank 0 it belongs to.
  MPI_Comm slice_comm;
  const RankLayout& layout;
  engine::InjectedDelays& delays;
  std::optional<double> calibrated_step;  // seconds; set when any worker is padded
  bool resumed = false;                   // the run goes on from a checkpoint (rank_checkpoints.h)
};

}  // namespace hetps::mpi
