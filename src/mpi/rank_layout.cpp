#include "mpi/rank_layout.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "mpi/patient_wait.h"
#include "mpi/session.h"
#include "mpi/wire/message_error.h"

namespace hetps::mpi {
namespace {

struct HostInfo {
  std::array<char, MPI_MAX_PROCESSOR_NAME> name{};
  int cores = 0;
};

}  // namespace

void check_job_shape(const config::ClusterConfig& cluster, int world_size,
                     bool workers_may_change) {
  const int ranks = cluster.servers + cluster.workers;
  if (world_size == ranks) return;
  const std::string prefix = fmt::format(
      "engine = \"mpi\" needs one rank per server and per worker: cluster.servers = {} + "
      "cluster.workers = {} = {} ranks",
      cluster.servers, cluster.workers, ranks);
  if (world_size == 1) {  // the usual cause: hetps started without a launcher
    throw JobShapeError(
        fmt::format("{}, but the job has 1 (started without mpirun, or with -np 1); start it "
                    "with `mpirun -np {} hetps ...` (or `srun -n {} hetps ...`)",
                    prefix, ranks, ranks));
  }
  const int workers_that_fit = world_size - cluster.servers;
  throw JobShapeError(
      fmt::format("{}, but the job has {} (-np {}); start it with -np {}{}", prefix, world_size,
                  world_size, ranks,
                  workers_may_change && workers_that_fit > 0
                      ? fmt::format(" or set cluster.workers = {}", workers_that_fit)
                      : ""));
}

RankLayout::RankLayout(const config::ClusterConfig& cluster, MPI_Comm comm, Patience patience)
    : servers_(cluster.servers), workers_(cluster.workers) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank_);
  check_job_shape(cluster, size, /*workers_may_change=*/true);

  HostInfo mine;
  const std::string host = host_name();
  std::copy_n(host.begin(), std::min(host.size(), mine.name.size() - 1), mine.name.begin());
  mine.cores = static_cast<int>(std::thread::hardware_concurrency());
  std::vector<HostInfo> all(static_cast<size_t>(size));
  MPI_Request request;
  MPI_Iallgather(&mine, sizeof(HostInfo), MPI_BYTE, all.data(), sizeof(HostInfo), MPI_BYTE, comm,
                 &request);
  wait_for(request, patience, [] {
    return std::string(
        "every rank's host name (MPI_Iallgather): some rank never joined the exchange");
  });
  for (const HostInfo& info : all) {
    // Up to the first NUL, or the whole array from a rank that sent none.
    hosts_.emplace_back(info.name.data(), strnlen(info.name.data(), info.name.size()));
    cores_.push_back(info.cores);
  }
}

int RankLayout::worker_sending(int rank, int tag) const {
  if (rank < servers_ || rank >= servers_ + workers_) {
    throw MessageError(rank, fmt::format("a message of tag {}, which only worker ranks ({} to {}) "
                                         "send",
                                         tag, servers_, servers_ + workers_ - 1));
  }
  return worker_of(rank);
}

std::string RankLayout::describe_worker(int worker) const {
  const int rank = worker_rank(worker);
  return fmt::format("worker {} (rank {} on host {})", worker, rank,
                     hosts_[static_cast<size_t>(rank)]);
}

std::string RankLayout::describe_server() const {
  return fmt::format("the server (rank {} on host {})", server_rank(),
                     hosts_[static_cast<size_t>(server_rank())]);
}

std::string RankLayout::describe_shard(int shard) const {
  const int rank = shard_rank(shard);
  return fmt::format("server shard {} (rank {} on host {})", shard, rank,
                     hosts_[static_cast<size_t>(rank)]);
}

std::string RankLayout::describe_workers(const std::vector<int>& workers) const {
  std::vector<std::string> names;
  for (int worker : workers) names.push_back(describe_worker(worker));
  return fmt::format("{}", fmt::join(names, ", "));
}

std::vector<std::string> RankLayout::crowded_hosts() const {
  std::map<std::string, int> ranks;
  std::map<std::string, int> cores;
  for (size_t r = 0; r < hosts_.size(); ++r) {
    ++ranks[hosts_[r]];
    cores[hosts_[r]] = cores_[r];
  }
  std::vector<std::string> crowded;
  for (const auto& [host, count] : ranks) {
    // hardware_concurrency() is 0 where the count is unknown: nothing to say then.
    if (cores[host] > 0 && count > cores[host]) {
      crowded.push_back(fmt::format("host {}: {} ranks on {} cores", host, count, cores[host]));
    }
  }
  return crowded;
}

bool RankLayout::ranks_share_a_host() const {
  return std::set<std::string>(hosts_.begin(), hosts_.end()).size() < hosts_.size();
}

}  // namespace hetps::mpi
