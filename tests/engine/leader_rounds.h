// A test protocol that drives the engines' leaders (protocol.h, "Leaders") the simplest way:
// two fixed communities, workers [0, split) and [split, n), each led by its first live member.
// A community round is synchronous: once every live member has pulled, all are answered at
// once, the leader gathering from the others; each merged update is applied on arrival, so
// communities run asynchronously. With one community of everyone it is BSP with the mean taken
// at a leader. Registered as "leader_rounds" with the parameter `split`.
#pragma once

#include <algorithm>
#include <set>
#include <vector>

#include "protocol/registry.h"

namespace hetps::testing {

class LeaderRounds : public protocol::Protocol {
 public:
  // `rotate`: each round of a community is led by its next member in turn, else by its first.
  LeaderRounds(int split, bool rotate) : split_(split), rotate_(rotate) {}

  std::string name() const override { return "leader_rounds"; }
  void start(const protocol::RunShape& shape, protocol::Actions&) override {
    communities_.assign(2, {});
    for (int w = 0; w < shape.workers; ++w) communities_[w < split_ ? 0 : 1].push_back(w);
    waiting_.assign(2, {});
    rounds_.assign(2, 0);
  }
  void on_pull_request(int worker, protocol::Actions& actions) override {
    const size_t c = community_of(worker);
    waiting_[c].insert(worker);
    answer_when_complete(c, actions);
  }
  void on_update(const protocol::UpdateInfo& update, protocol::Actions& actions) override {
    actions.apply({update.kind, {update.id}, {1.0}});
  }
  void on_worker_failed(int worker, protocol::Actions& actions) override {
    const size_t c = community_of(worker);
    std::erase(communities_[c], worker);
    waiting_[c].erase(worker);
    answer_when_complete(c, actions);
  }
  // Its whole state, so that a run of it resumes from a checkpoint.
  nlohmann::json save_state() const override {
    return {{"split", split_},
            {"rounds", rounds_},
            {"communities", communities_},
            {"waiting", waiting_}};
  }
  void restore_state(const nlohmann::json& state) override {
    rounds_ = state.at("rounds").get<std::vector<int>>();
    communities_ = state.at("communities").get<std::vector<std::vector<int>>>();
    waiting_ = state.at("waiting").get<std::vector<std::set<int>>>();
  }

  // Known as "leader_rounds" while the registration lives.
  static protocol::ProtocolRegistration registration() {
    return protocol::ProtocolRegistration(
        {"leader_rounds",
         "test: two fixed communities with leader aggregation",
         {{"split", 1000.0, "workers in the first community", 1, 1000, true, {}},
          {"rotate", 0.0, "1: the leadership rotates every round", 0, 1, true, {}}},
         [](const config::ProtocolParams& params) {
           return std::make_unique<LeaderRounds>(
               static_cast<int>(std::get<double>(params.at("split"))),
               std::get<double>(params.at("rotate")) == 1.0);
         }});
  }

 private:
  size_t community_of(int worker) const { return worker < split_ ? 0 : 1; }

  void answer_when_complete(size_t c, protocol::Actions& actions) {
    const std::vector<int>& members = communities_[c];
    if (members.empty() || waiting_[c].size() < members.size()) return;
    waiting_[c].clear();
    const size_t first = rotate_ ? static_cast<size_t>(rounds_[c]++) % members.size() : 0;
    const int leader = members[first];
    protocol::WorkerPlan leads;
    protocol::WorkerPlan follows;
    follows.send_to = leader;
    for (int member : members) {
      if (member != leader) leads.gather_from.push_back(member);
    }
    // Members first, as a barrier answers in worker order.
    for (int member : members) actions.reply_pull(member, member == leader ? leads : follows);
  }

  int split_;
  bool rotate_;
  std::vector<int> rounds_;
  std::vector<std::vector<int>> communities_;
  std::vector<std::set<int>> waiting_;
};

}  // namespace hetps::testing
