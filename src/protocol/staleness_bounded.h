// SSP, stale synchronous parallel with bound s [Ho et al., NIPS 2013; spec/baselines.md], and
// ASP as its s = ∞ case.
//   - Every gradient is applied on arrival, alone, through the server optimizer.
//   - Worker i may start its step k (counting from 1) only when every live worker has pushed at
//     least k − 1 − s steps; until then its pull is held. A pull that is answered starts a step.
//   - So: steps started by any worker exceed steps pushed by any live worker by at most s + 1.
//   - With s = ∞ (ASP) no pull is ever held.
// A dead worker no longer counts towards the minimum, which may release held pulls.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "protocol/protocol.h"

namespace hetps::protocol {

class StalenessBounded : public Protocol {
 public:
  // `bound` = s; kUnbounded gives ASP.
  StalenessBounded(std::string name, int64_t bound);

  std::string name() const override { return name_; }
  void start(const RunShape& shape, Actions& actions) override;
  void on_pull_request(int worker, Actions& actions) override;
  void on_update(const UpdateInfo& update, Actions& actions) override;
  void on_worker_failed(int worker, Actions& actions) override;
  nlohmann::json save_state() const override;
  void restore_state(const nlohmann::json& state) override;

 private:
  bool may_start_next_step(int worker) const;
  int64_t min_pushed_by_live() const;
  void release_held_pulls(Actions& actions);

  std::string name_;
  int64_t bound_;
  std::vector<int64_t> started_;
  std::vector<int64_t> pushed_;
  std::set<int> live_;
  std::set<int> held_pulls_;
};

}  // namespace hetps::protocol
