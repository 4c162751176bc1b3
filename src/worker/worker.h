// One worker's training loop, the same on every engine: given the model it pulled and the
// protocol's plan, compute steps on its own data and produce the update to push.
//   Gradient plan: one step's gradient at the pulled model (no copy of the model is made).
//   Delta plan: up to `max_local_steps` local SGD steps from the pulled model with the worker's
//   own optimizer (its momentum survives a pull, spec/baselines.md), stopping early once
//   ‖w − w_pull‖² / ‖w_pull‖² exceeds `change_threshold`; the update is w − w_pull.
//   Delta plan with keep_ratio < 1 (spec/ashl.md, Algorithm 2): the delta is top-k compressed
//   with the worker's own error feedback, kept across rounds, so that what one round leaves out
//   is sent later; the update then holds the kept entries and zeros elsewhere, which is what
//   the server merges. A later dense round sends whatever is still held back along with it.
//   Above half the entries the sparse form (8 bytes an entry) outweighs the dense one (4): the
//   update then travels dense, holding the same kept entries.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/dataset.h"
#include "data/sampler.h"
#include "model/learner.h"
#include "protocol/protocol.h"
#include "server/sgd_optimizer.h"
#include "worker/top_k.h"

namespace hetps::worker {

// Every worker's sample indices (data/partition.h).
using Partition = std::vector<std::vector<int64_t>>;

struct WorkerOptions {
  int batch_size = 32;
  double momentum = 0.9;  // the local optimizer's (delta plans only)
  server::SgdOptions sgd;
};

// What one run of a plan did.
struct RoundResult {
  int steps = 0;
  int64_t samples = 0;
  double mean_loss = 0;
  // A top-k compressed delta: the entries that travel (the update holds them too, with zeros
  // elsewhere). Empty for a dense update.
  std::optional<SparseDelta> sparse;
};

class Worker {
 public:
  // `partition`: every worker's samples as the run starts (data/partition.h), shared by the
  // run's workers; this worker trains on its own, and on its part of a re-cut when a plan gives
  // data shares.
  Worker(int id, model::Learner& learner, const data::Dataset& train,
         std::shared_ptr<const Partition> partition, uint64_t seed, const WorkerOptions& options);

  int id() const { return id_; }

  // Runs `plan` from `pulled` (the global model as pulled) and writes the update into
  // `update` (same size as the model). `lr` is the local optimizer's learning rate. Plan data
  // shares other than the ones in force re-cut the partition first; the worker then starts a
  // fresh epoch over its new samples. Throws std::invalid_argument for a gradient plan of
  // several steps or with keep_ratio != 1, for a keep_ratio outside (0, 1], and for data shares
  // that are not one per worker, summing to 1.
  RoundResult run(const protocol::WorkerPlan& plan, std::span<const float> pulled, double lr,
                  std::span<float> update);

  // What the worker's next rounds depend on, for checkpoints: where its sampler stands, the
  // data shares in force (the re-cut they make is rebuilt from the run's partition), the local
  // optimizer's momentum and the error feedback's residual, each only once it exists. The local
  // model is not saved: every round starts it from the pulled model.
  nlohmann::json save_state() const;
  // Into a worker built as this one was (same id, learner, partition and seed). Throws
  // checkpoint::CheckpointError naming the worker and what does not fit: data shares that are
  // not one per worker, a sampler position outside the shard, a buffer of another size than
  // the model, a field missing. Nothing changes then.
  void restore_state(const nlohmann::json& state);

 private:
  double step(std::span<const float> params, std::span<float> grad);
  // The local model, its gradient and optimizer, allocated on a delta plan's first use.
  void allocate_local_model(size_t floats);
  RoundResult run_local_steps(const protocol::WorkerPlan& plan, std::span<const float> pulled,
                              double lr, std::span<float> update);
  // Replaces the delta in `update` with what is sent of it at `keep_ratio`: with error
  // feedback, top-k of it plus what earlier rounds held back; without, top-k of it alone.
  SparseDelta compress(std::span<float> update, double keep_ratio, bool error_feedback);

  int id_;
  model::Learner& learner_;
  const data::Dataset& train_;
  std::shared_ptr<const Partition> partition_;  // as the run started
  std::vector<double> data_shares_;             // the cut in force; empty: `partition_`
  uint64_t seed_;
  data::BatchSampler sampler_;
  WorkerOptions options_;
  std::vector<float> batch_inputs_;
  std::vector<int64_t> batch_labels_;
  // Delta plans only, allocated on first use: the local model, its gradient and optimizer.
  std::vector<float> local_;
  std::vector<float> local_grad_;
  std::unique_ptr<server::SgdOptimizer> local_optimizer_;
  // From the first compressed round with error feedback on: what top-k has held back so far.
  std::optional<ErrorFeedback> feedback_;
  std::vector<float> top_k_scratch_;  // compression without error feedback
};

// ‖a − b‖² / ‖b‖² (0 when b is all zeros and a equals b).
double relative_change(std::span<const float> a, std::span<const float> b);

}  // namespace hetps::worker
