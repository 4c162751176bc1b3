// Petrel's community-aware synchronous parallel (spec/petrel.md, "Communities") as rules on
// events, whatever chooses the communities:
//   1. Inside a community, synchronous rounds: once every live member has pulled, all are
//      answered at once and each computes one step. With aggregation at the leader the members
//      send their updates to the leader, which pushes their mean as one update (protocol.h,
//      "Leaders"); with aggregation at the server the server keeps the community's barrier and
//      applies the mean of the members' updates, as BSP does for everyone.
//   2. Between communities, asynchronous: each community's round is applied on arrival,
//      weighted by its share of the live workers (c of n members: its mean counts c/n), so a
//      small community's noisier, staler mean moves the model less, and one community of
//      everyone is BSP exactly. (Measured on hetero-compute, 8 workers, lr 0.05, momentum 0.9:
//      unweighted, the two communities' rounds diverged to 38% accuracy; weighted, 86.3%.) With a
//      staleness bound s, a community starts its round r only once every other community has
//      closed r − s rounds (SSP over community clocks).
//   3. A regroup (`regroup`) lets every community finish the round it is in (a brief global
//      quiesce), then installs the new communities, whose clocks start at 0: no update is lost
//      or applied twice.
// A dead worker leaves its community at once. A dead leader's round is given up (the engine
// sends its members back to the server, whose pulls then wait for the next round) and the next
// member named in the grouping's order leads.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "protocol/protocol.h"

namespace hetps::protocol {

struct Grouping {
  // Each community's members, in the order they take over the lead (the first leads).
  std::vector<std::vector<int>> communities;
  bool aggregate_at_leader = true;

  bool operator==(const Grouping&) const = default;
};

class CommunityRounds {
 public:
  // `staleness`: kUnbounded for none.
  CommunityRounds(int workers, int64_t staleness, Grouping grouping);

  void on_pull_request(int worker, Actions& actions);
  void on_update(const UpdateInfo& update, Actions& actions);
  void on_worker_failed(int worker, Actions& actions);
  // Installs `grouping` once no community is in a round (at once if none is). Its dead workers
  // are left out, and a live worker it leaves out is an error.
  void regroup(Grouping grouping, Actions& actions);

  bool quiescing() const { return pending_.has_value(); }
  // The communities of live workers now (their leaders first).
  const Grouping& grouping() const { return grouping_; }
  // Rounds each community closed since the grouping was installed.
  std::vector<int64_t> rounds() const;

  nlohmann::json save_state() const;
  void restore_state(const nlohmann::json& state);

 private:
  struct Community {
    std::set<int> held;                // members whose pull waits for the round to start
    std::map<int, int> contributions;  // at the server: member → update id, this round
    bool in_round = false;
    int64_t rounds = 0;
  };

  void install(Grouping grouping);
  void try_start_rounds(Actions& actions);
  bool may_start(size_t c) const;
  void close_round(size_t c, Actions& actions);
  void close_if_complete(size_t c, Actions& actions);
  const std::vector<int>& members(size_t c) const { return grouping_.communities[c]; }

  // Community c's members as a fraction of the live workers: the weight of its round.
  double share_of(size_t c) const;
  int workers_;
  int64_t staleness_;
  std::set<int> live_;
  Grouping grouping_;
  std::vector<Community> state_;     // by community
  std::vector<int> community_of_;    // by worker; -1 when dead
  std::optional<Grouping> pending_;  // a regroup waiting for the rounds in progress
};

}  // namespace hetps::protocol
