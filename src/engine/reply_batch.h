// Which pull replies a leader carries (protocol.h, "Leaders"). An engine collects the replies a
// protocol makes while it handles one message and sends them when the handling ends or before
// the next apply (the model must be the one each reply was made with). A reply to a worker
// whose last update a leader merged goes through that leader when the leader is answered in the
// same batch, straight from the server: the server sends the model once, and the leader hands it
// on. A reply that makes its worker a leader (its plan gathers) always comes from the server.
// Every engine routes with this class.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/protocol.h"

namespace hetps::engine {

class ReplyBatch {
 public:
  struct Route {
    int worker = 0;
    protocol::WorkerPlan plan;
    int via = protocol::kServer;  // the leader that hands the model on, or the server
  };

  explicit ReplyBatch(int workers);

  // `leader`'s merged update holding `members`' has arrived: their next replies may go
  // through it.
  void merged(int leader, const std::vector<int>& members);
  void add(int worker, protocol::WorkerPlan plan);
  bool empty() const { return pending_.empty(); }
  // The batch in delivery order (the replies from the server in the order they were made, then
  // the relayed ones, each after its leader's), and empties it.
  std::vector<Route> take();

  // Which leader merged each worker's last update: a member whose reply a protocol holds past
  // the message that brought the merge is still relayed by its leader in a later batch, so
  // this outlives a batch and goes into checkpoints. Saved between messages only (throws
  // std::logic_error while replies are pending). restore_state throws
  // checkpoint::CheckpointError for another worker count or a leader that is no worker.
  nlohmann::json save_state() const;
  void restore_state(const nlohmann::json& state);

 private:
  std::vector<int> merged_by_;  // per worker: the leader that merged its last update, or kServer
  std::vector<Route> pending_;
};

}  // namespace hetps::engine
