// Who is who in an MPI job: the first `cluster.servers` ranks are server shards, shard s on
// rank s (rank 0 also runs the protocol), the rest are workers, worker w on rank servers + w;
// and on which host each rank runs.
#pragma once

#include <mpi.h>

#include "mpi/patient_wait.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "config/config.h"

namespace hetps::mpi {

// The job does not have the shape the config asks for (its size, its servers). Every rank
// finds the same, before any run message.
class JobShapeError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Throws JobShapeError when a job of `world_size` ranks cannot run `cluster`. The message
// suggests the worker count that fits only where `workers_may_change` (not on a resume, whose
// config is the run's).
void check_job_shape(const config::ClusterConfig& cluster, int world_size, bool workers_may_change);

class RankLayout {
 public:
  // Throws JobShapeError when the job's size is not `cluster.servers + cluster.workers`. Then
  // gathers every rank's host, throwing engine::StallError after `patience`
  // (run.start_timeout_s) without them all.
  RankLayout(const config::ClusterConfig& cluster, MPI_Comm comm, Patience patience);

  int rank() const { return rank_; }
  bool is_server() const { return rank_ < servers_; }
  // The rank that runs the protocol and holds shard 0.
  int server_rank() const { return 0; }
  int servers() const { return servers_; }
  int shard_rank(int shard) const { return shard; }
  int worker_rank(int worker) const { return servers_ + worker; }
  int worker_of(int rank) const { return rank - servers_; }
  // The worker on `rank`, which sent a message with `tag` that only workers send; throws
  // MessageError when `rank` is a server shard's.
  int worker_sending(int rank, int tag) const;
  int workers() const { return workers_; }

  // "worker W (rank R on host H)", for stall and failure messages.
  std::string describe_worker(int worker) const;
  // "the server (rank 0 on host H)", likewise.
  std::string describe_server() const;
  // "server shard S (rank R on host H)", likewise.
  std::string describe_shard(int shard) const;
  // Several of them, separated by commas.
  std::string describe_workers(const std::vector<int>& workers) const;
  // "host H: R ranks on C cores" for every host whose ranks outnumber its cores.
  std::vector<std::string> crowded_hosts() const;
  // Whether two ranks or more run on one host (and talk through shared memory).
  bool ranks_share_a_host() const;

 private:
  int rank_ = 0;
  int servers_ = 1;
  int workers_ = 0;
  std::vector<std::string> hosts_;  // by rank
  std::vector<int> cores_;          // by rank: its host's cores
};

}  // namespace hetps::mpi
