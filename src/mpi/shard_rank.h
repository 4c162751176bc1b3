// A server shard rank other than rank 0 (cluster.servers > 1): it holds one shard of the global
// model and its optimizer state, takes every worker's slice of each push as it arrives, and
// carries out rank 0's orders (wire/shard_orders.h) in the order given: the same applies in the
// same order give its keys the bits one process would. It sends each worker its slice of every
// reply rank 0 sends, and rank 0 its slice for evaluations. It returns once rank 0 said stop and
// every worker said goodbye (so no worker's send to it is left pending).
#pragma once

#include "mpi/rank_setup.h"

namespace hetps::mpi {

void run_shard_rank(const RankSetup& setup);

}  // namespace hetps::mpi
