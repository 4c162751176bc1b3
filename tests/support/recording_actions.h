// A scripted engine for protocol tests: records every decision, applies nothing.
#pragma once

#include <string>
#include <vector>

#include "protocol/protocol.h"

namespace hetps::testing {

class RecordingActions : public protocol::Actions {
 public:
  struct Reply {
    int worker;
    protocol::WorkerPlan plan;
    int64_t version;  // the model version the reply carries
  };

  // `version`: the server's version as it starts, e.g. that of a restored checkpoint.
  explicit RecordingActions(int64_t version = 0) : version_(version) {}

  int64_t apply(const protocol::ApplyOrder& order) override {
    applied.push_back(order);
    return ++version_;
  }
  void reply_pull(int worker, const protocol::WorkerPlan& plan) override {
    replies.push_back({worker, plan, version_});
  }
  void discard(int update_id) override { discarded.push_back(update_id); }
  void set_optimizer(const protocol::OptimizerOverride& settings) override {
    optimizer_changes.push_back(settings);
  }
  void record(const protocol::ProtocolEvent& event) override { events.push_back(event); }
  int64_t version() const override { return version_; }
  double charge_switch() override {
    ++switches_charged;
    return switch_charge;
  }

  // The workers whose pulls were answered since the last call.
  std::vector<int> take_replied_workers() {
    std::vector<int> workers;
    for (size_t i = replies_seen_; i < replies.size(); ++i) workers.push_back(replies[i].worker);
    replies_seen_ = replies.size();
    return workers;
  }

  // The recorded events of one type, in the order recorded.
  std::vector<protocol::ProtocolEvent> events_of_type(const std::string& type) const {
    std::vector<protocol::ProtocolEvent> found;
    for (const auto& event : events) {
      if (event.type == type) found.push_back(event);
    }
    return found;
  }

  std::vector<protocol::ApplyOrder> applied;
  std::vector<Reply> replies;
  std::vector<int> discarded;
  std::vector<protocol::OptimizerOverride> optimizer_changes;
  std::vector<protocol::ProtocolEvent> events;
  int switches_charged = 0;
  double switch_charge = 0;  // what charge_switch returns: the seconds an engine would add

 private:
  int64_t version_ = 0;
  size_t replies_seen_ = 0;
};

}  // namespace hetps::testing
