// What an engine is told about checkpoints (issue 9): where to hand its state, the state to
// continue from, and a flag that asks it to stop with a checkpoint (set by SIGINT/SIGTERM).
// The engine decides when its state is consistent; what becomes of the state (a file, the run
// log's length beside it) is the caller's business.
#pragma once

#include <atomic>
#include <functional>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetps::engine {

struct RunCheckpoints {
  // Receives the engine's whole state at `time` (engine seconds) every
  // `run.checkpoint_interval`, and when `stop` is set. Empty: no checkpoint is taken (and
  // `stop` is not watched).
  std::function<void(const nlohmann::json& state, double time)> save;
  // A state `save` was given, by a run of the same config: the run continues from it.
  const nlohmann::json* resume_from = nullptr;
  // With `resume_from`: the shards whose injected crash (`cluster.shard_failures`, a real
  // engine's) ended an earlier part of this run, after the checkpoint. The crash happened and
  // the restarted shard is a new process, so it is not injected again (engine/shard_failures.h).
  std::vector<int> crashed_shards;
  const std::atomic<bool>* stop = nullptr;
};

// The run stopped because `RunCheckpoints::stop` was set, after saving its state at `time`.
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(double time)
      : std::runtime_error("the run was asked to stop"), time_(time) {}
  double time() const { return time_; }

 private:
  double time_;
};

}  // namespace hetps::engine
