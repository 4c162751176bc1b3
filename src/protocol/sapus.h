// SaPus, self-adaptive parameter updates [Zhang, Wang, TPDS 33(7) 2022]. The paper's details are
// not public: this is hetps's design on the ingredients the paper names (spec/sapus.md).
//   - Event-triggered asynchronous local SGD: a worker runs local steps from the model it
//     pulled and pushes its model delta once the model moved more than θ
//     (‖w − w_pull‖² / ‖w_pull‖² > θ) or after τ_max[i] steps, whichever comes first; then it
//     pulls. No pull is ever held.
//   - Performance model: τ_max[i] from the worker's measured step and round-trip times
//     (sapus_rules.h). Until a worker has pushed twice (its first push is not measured: on
//     mpi its round trip is incomplete) its plan is one step, which measures it soonest.
//   - Global-loss window: the one θ is adapted from the losses reported with the pushes
//     (threshold_window.h) and goes out with every pull.
//   - Weighted aggregation: each delta is merged on arrival with weight α / (1 + d), d the
//     updates applied since the worker's pull.
// Run log: a `push` record per push (worker, local steps, seconds since its previous push,
// staleness, weight) and a `threshold` record at the start and at every window's end.
#pragma once

#include <optional>
#include <vector>

#include "protocol/protocol.h"
#include "protocol/threshold_window.h"
#include "protocol/worker_features.h"

namespace hetps::protocol {

// The registry's defaults are the sweep's (docs/protocols/sapus.md); these are the same.
struct SapusOptions {
  double rho = 50;
  int tau_cap = 64;
  int perf_window = 10;  // samples in each worker's moving step and round-trip windows
  ThresholdRule threshold;
  double theta = 1e-4;  // the initial θ
  double alpha = 1;
};

class Sapus : public Protocol {
 public:
  // Throws std::invalid_argument for options ThresholdWindow refuses.
  explicit Sapus(const SapusOptions& options);

  std::string name() const override { return "sapus"; }
  void start(const RunShape& shape, Actions& actions) override;
  void on_pull_request(int worker, Actions& actions) override;
  void on_update(const UpdateInfo& update, Actions& actions) override;
  void on_worker_failed(int worker, Actions& actions) override;
  nlohmann::json save_state() const override;
  void restore_state(const nlohmann::json& state) override;

 private:
  WorkerPlan plan_for(int worker) const;

  SapusOptions options_;
  ThresholdWindow threshold_;
  std::optional<WorkerFeatures> features_;        // made at start, when n is known
  std::vector<std::optional<double>> last_push_;  // engine time of each worker's last push
};

}  // namespace hetps::protocol
