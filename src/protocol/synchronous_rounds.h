// The synchronous round shared by BSP and synchronous local SGD (spec/baselines.md):
//   1. Every live worker pulls the model of the current version and runs its plan.
//   2. Its update is kept, and its next pull held, until every live worker has sent one.
//   3. The round's updates are applied together, as their mean, in one new version; then every
//      held pull is answered with the new model.
// A worker declared dead leaves the barrier at once (elastic): its pending update is dropped,
// and the round closes if it was the last one missing. A round never closes partially while
// a live worker still owes its update.
#pragma once

#include <map>
#include <set>
#include <string>

#include "protocol/protocol.h"

namespace hetps::protocol {

class SynchronousRounds : public Protocol {
 public:
  SynchronousRounds(std::string name, WorkerPlan plan);

  std::string name() const override { return name_; }
  void start(const RunShape& shape, Actions& actions) override;
  void on_pull_request(int worker, Actions& actions) override;
  void on_update(const UpdateInfo& update, Actions& actions) override;
  void on_worker_failed(int worker, Actions& actions) override;
  nlohmann::json save_state() const override;
  // Throws std::invalid_argument, and changes nothing, for a state that cannot be this run's:
  // ids outside the run's workers (once started), a contribution from a worker that is not
  // live, a held pull of one that has not contributed, a negative round count.
  void restore_state(const nlohmann::json& state) override;

  // Rounds applied so far.
  int64_t rounds_closed() const { return rounds_closed_; }
  // Gives up the round being collected (a switch away from synchronous rounds): returns its
  // updates (worker → update id, unapplied) and the pulls held for it, unanswered.
  struct AbandonedRound {
    std::map<int, int> contributions;
    std::set<int> held_pulls;
  };
  AbandonedRound abandon_round();

 private:
  void close_round_if_complete(Actions& actions);

  std::string name_;
  WorkerPlan plan_;
  int workers_ = 0;  // the run's, once started; 0 before
  std::set<int> live_;
  std::map<int, int> contributions_;  // worker → update id, for the round being collected
  std::set<int> held_pulls_;
  int64_t rounds_closed_ = 0;
};

}  // namespace hetps::protocol
