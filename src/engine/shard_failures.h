// Injected server-shard crashes (`cluster.shard_failures`) on the real engines (threads, mpi),
// whose ServerLoop injects them. A shard's process holds its part of the global model and
// nothing else has it, so when it dies the run cannot go on: at the crash's time the loop stops
// serving, takes no checkpoint (the state it would save is no longer there to save), and the
// engine stops its workers and throws ShardCrashed. The run goes on from its last checkpoint,
// taken before the crash, with `hetps train --resume`; the restarted shard is a new process, so
// the crash that happened is not injected again (RunCheckpoints::crashed_shards).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "config/config.h"

namespace hetps::engine {

// Server shard `shard` crashed at `time` (engine seconds, the injected time) and ended the run:
// no summary was written, the workers were stopped. A runtime failure, not bad input.
class ShardCrashed : public std::runtime_error {
 public:
  // "server shard 1 crashed at 2.000 s of run time (cluster.shard_failures)".
  ShardCrashed(int shard, double time);
  // The same crash, told by `message` (the command line adds what survives and how to go on).
  ShardCrashed(int shard, double time, const std::string& message)
      : std::runtime_error(message), shard_(shard), time_(time) {}

  int shard() const { return shard_; }
  double time() const { return time_; }

 private:
  int shard_;
  double time_;
};

// The crashes still to come, earliest first.
class ShardFailures {
 public:
  explicit ShardFailures(const config::ClusterConfig& cluster);

  // The crashes of `shards` ended an earlier part of this run, which now resumes: they happened,
  // and are not injected again.
  void skip(const std::vector<int>& shards);
  // When the next crash comes (infinity when none is left).
  double next() const;
  // The crash due by `time`, or null.
  const config::ShardFailure* due(double time) const;

 private:
  std::vector<config::ShardFailure> ahead_;  // by time, the next one last
};

}  // namespace hetps::engine
