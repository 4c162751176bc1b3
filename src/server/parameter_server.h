// The parameter server: the global model, sharded by key range over `shards` shards, each with
// its own slice of the server optimizer's state. Every shard applies every update, so a
// version (one applied ApplyOrder) is global. Engines that run shards in separate processes
// hold one ParameterServer per process restricted to its shard (ServerOptions::only_shard): the
// same orders in the same order give every key the bits it has in one process.
//
// An apply may use several threads (ServerOptions::apply_threads): each applies its own
// contiguous share of the keys, split as shards are. Every key's arithmetic is the same whoever
// does it, so the model's bits do not depend on the count.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

#include "params/layout.h"
#include "protocol/protocol.h"
#include "server/lr_schedule.h"
#include "server/sgd_optimizer.h"
#include "server/thread_team.h"

namespace hetps::server {

struct ServerOptions {
  int shards = 1;
  // Threads that apply each order together, the caller among them. One core's memory bandwidth
  // bounds an apply of one gradient with momentum at about half of memcpy's (bench/README.md);
  // more threads help only on cores nothing else uses meanwhile: an apply waits for its slowest
  // thread. 1, the caller alone, never competes with workers or libtorch for a core.
  int apply_threads = 1;
  // The one shard this process applies (its optimizer state alone is kept); -1: every shard.
  // The other shards' keys keep their initial values until `load_keys` copies them in.
  int only_shard = -1;
  SgdOptions sgd;
  double momentum = 0.9;
  LrScheduleOptions schedule;
};

class ParameterServer {
 public:
  ParameterServer(const params::ParamLayout& layout, std::vector<float> initial_model,
                  const ServerOptions& options);
  // The shards point into model_: a copy or a move would leave them pointing at another's.
  ParameterServer(const ParameterServer&) = delete;
  ParameterServer& operator=(const ParameterServer&) = delete;

  std::span<const float> model() const { return model_; }
  int64_t version() const { return version_; }
  const std::vector<params::KeyRange>& shard_ranges() const { return ranges_; }
  // Each shard's share of the model's keys (and so of its bytes on the wire), in shard order.
  std::vector<double> shard_fractions() const;

  // Applies one order as one new version. `payloads[k]` is the whole flat update named by
  // `order.update_ids[k]`. The learning rate comes from the schedule at `samples_processed`.
  void apply(const protocol::ApplyOrder& order, std::span<const float* const> payloads,
             int64_t samples_processed);

  // Overwrites the model's `keys` with `values` (another process's shard, before an
  // evaluation).
  void load_keys(const params::KeyRange& keys, std::span<const float> values);

  // Sync-Switch's rules at a switch: a scale on the scheduled LR and a momentum override.
  void set_override(const protocol::OptimizerOverride& settings) { override_ = settings; }
  double current_lr(int64_t samples_processed) const;

  // The model, the momentum of the keys this server applies, the version and the optimizer
  // override, for checkpoints (the LR schedule is a function of the samples, which the run's
  // statistics keep). The momentum is one buffer over the keys held, in key order, not one
  // per apply thread: the threads split the keys as the config's apply_threads says, and a run
  // may resume with another count without changing a bit.
  nlohmann::json save_state() const;
  // Into a server of the same layout and shards (only_shard the same). Throws
  // checkpoint::CheckpointError naming what does not fit (the model's or the momentum's float
  // count, a field missing), and then changes nothing.
  void restore_state(const nlohmann::json& state);

 private:
  // The keys one team member applies within one shard, with their slice of the optimizer.
  struct ApplyPart {
    int member;
    SgdOptimizer optimizer;
  };

  std::vector<float> model_;
  std::vector<params::KeyRange> ranges_;
  std::vector<ApplyPart> parts_;  // by shard, then by member: the held keys in order
  ThreadTeam team_;               // after parts_: its threads end before the parts they apply
  LrSchedule schedule_;
  double momentum_;
  protocol::OptimizerOverride override_;
  int64_t version_ = 0;
};

}  // namespace hetps::server
