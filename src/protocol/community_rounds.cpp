#include "protocol/community_rounds.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "checkpoint/saved_integers.h"

namespace hetps::protocol {
namespace {

// Why `communities` cannot route this run's pulls and updates: an id outside the run, or one
// placed twice ("" when every id is in range and placed once).
std::string misplaced_worker(const std::vector<std::vector<int>>& communities, int workers) {
  std::vector<bool> placed(static_cast<size_t>(workers));
  for (const std::vector<int>& members : communities) {
    for (int member : members) {
      if (member < 0 || member >= workers) {
        return fmt::format("names worker {} of {}", member, workers);
      }
      if (placed[static_cast<size_t>(member)]) {
        return fmt::format("places worker {} twice", member);
      }
      placed[static_cast<size_t>(member)] = true;
    }
  }
  return "";
}

}  // namespace

CommunityRounds::CommunityRounds(int workers, int64_t staleness, Grouping grouping)
    : workers_(workers), staleness_(staleness) {
  for (int w = 0; w < workers; ++w) live_.insert(w);
  install(std::move(grouping));
}

void CommunityRounds::install(Grouping grouping) {
  std::set<int> held;
  for (const Community& community : state_)
    held.insert(community.held.begin(), community.held.end());
  if (const std::string defect = misplaced_worker(grouping.communities, workers_);
      !defect.empty()) {
    throw std::invalid_argument("a grouping " + defect);
  }
  Grouping kept{{}, grouping.aggregate_at_leader};
  for (const std::vector<int>& members : grouping.communities) {
    std::vector<int> live_members;
    std::ranges::copy_if(members, std::back_inserter(live_members),
                         [&](int member) { return live_.contains(member); });
    if (!live_members.empty()) kept.communities.push_back(std::move(live_members));
  }
  for (int worker : live_) {
    const auto places_it = [&](const std::vector<int>& members) {
      return std::ranges::find(members, worker) != members.end();
    };
    if (std::ranges::none_of(grouping.communities, places_it)) {
      throw std::invalid_argument(fmt::format("a grouping leaves out live worker {}", worker));
    }
  }
  grouping_ = std::move(kept);
  state_.assign(grouping_.communities.size(), Community{});
  community_of_.assign(static_cast<size_t>(workers_), -1);
  for (size_t c = 0; c < grouping_.communities.size(); ++c) {
    for (int member : members(c)) {
      community_of_[static_cast<size_t>(member)] = static_cast<int>(c);
      if (held.contains(member)) state_[c].held.insert(member);
    }
  }
}

void CommunityRounds::regroup(Grouping grouping, Actions& actions) {
  pending_ = std::move(grouping);
  try_start_rounds(actions);
}

std::vector<int64_t> CommunityRounds::rounds() const {
  std::vector<int64_t> rounds;
  for (const Community& community : state_) rounds.push_back(community.rounds);
  return rounds;
}

void CommunityRounds::on_pull_request(int worker, Actions& actions) {
  if (!live_.contains(worker)) return;
  state_[static_cast<size_t>(community_of_[static_cast<size_t>(worker)])].held.insert(worker);
  try_start_rounds(actions);
}

bool CommunityRounds::may_start(size_t c) const {
  const Community& community = state_[c];
  if (community.in_round || members(c).empty() || community.held.size() < members(c).size()) {
    return false;
  }
  if (staleness_ == kUnbounded) return true;
  for (size_t other = 0; other < state_.size(); ++other) {
    if (other != c && !members(other).empty() &&
        community.rounds - state_[other].rounds > staleness_) {
      return false;
    }
  }
  return true;
}

// Starts every round that may start, or, while a regroup waits, installs it once no round is
// left in progress.
void CommunityRounds::try_start_rounds(Actions& actions) {
  if (pending_) {
    const bool any_in_round =
        std::any_of(state_.begin(), state_.end(), [](const Community& c) { return c.in_round; });
    if (any_in_round) return;
    install(std::move(*pending_));
    pending_.reset();
  }
  for (size_t c = 0; c < state_.size(); ++c) {
    if (!may_start(c)) continue;
    Community& community = state_[c];
    community.in_round = true;
    community.held.clear();
    const std::vector<int>& group = members(c);
    WorkerPlan leads;
    WorkerPlan follows;
    if (grouping_.aggregate_at_leader) {
      leads.gather_from.assign(group.begin() + 1, group.end());
      follows.send_to = group.front();
    }
    // In worker order, as a barrier answers.
    std::vector<int> answered = group;
    std::sort(answered.begin(), answered.end());
    for (int member : answered)
      actions.reply_pull(member, member == group.front() ? leads : follows);
  }
}

void CommunityRounds::on_update(const UpdateInfo& update, Actions& actions) {
  const int c =
      live_.contains(update.worker) ? community_of_[static_cast<size_t>(update.worker)] : -1;
  if (c < 0 || !state_[static_cast<size_t>(c)].in_round) {
    actions.discard(update.id);
    return;
  }
  Community& community = state_[static_cast<size_t>(c)];
  if (grouping_.aggregate_at_leader) {
    if (update.worker != members(static_cast<size_t>(c)).front()) {
      actions.discard(update.id);
      return;
    }
    // The leader's mean of its community, which counts for its members' share of the workers.
    actions.apply({update.kind, {update.id}, {share_of(static_cast<size_t>(c))}});
    close_round(static_cast<size_t>(c), actions);
    return;
  }
  if (!community.contributions.emplace(update.worker, update.id).second) {
    actions.discard(update.id);
    return;
  }
  close_if_complete(static_cast<size_t>(c), actions);
}

void CommunityRounds::close_if_complete(size_t c, Actions& actions) {
  Community& community = state_[c];
  if (!community.in_round || grouping_.aggregate_at_leader ||
      community.contributions.size() < members(c).size()) {
    return;
  }
  ApplyOrder order;
  const double weight = share_of(c) / static_cast<double>(community.contributions.size());
  for (const auto& [worker, id] : community.contributions) {  // worker order: BSP's sums
    order.update_ids.push_back(id);
    order.weights.push_back(weight);
  }
  community.contributions.clear();
  actions.apply(order);
  close_round(c, actions);
}

double CommunityRounds::share_of(size_t c) const {
  if (live_.empty()) throw std::logic_error("CommunityRounds: a round closed with no live worker");
  return static_cast<double>(members(c).size()) / static_cast<double>(live_.size());
}

void CommunityRounds::close_round(size_t c, Actions& actions) {
  state_[c].in_round = false;
  ++state_[c].rounds;
  try_start_rounds(actions);
}

void CommunityRounds::on_worker_failed(int worker, Actions& actions) {
  if (!live_.erase(worker)) return;
  const auto c = static_cast<size_t>(community_of_[static_cast<size_t>(worker)]);
  community_of_[static_cast<size_t>(worker)] = -1;
  Community& community = state_[c];
  std::vector<int>& group = grouping_.communities[c];
  const bool was_leader = group.front() == worker;
  std::erase(group, worker);
  community.held.erase(worker);
  if (auto it = community.contributions.find(worker); it != community.contributions.end()) {
    actions.discard(it->second);
    community.contributions.erase(it);
  }
  // The engine sends a dead leader's members back to the server: their pulls start the next
  // round, under the next leader.
  if (grouping_.aggregate_at_leader && was_leader) community.in_round = false;
  if (group.empty()) community.in_round = false;
  close_if_complete(c, actions);
  try_start_rounds(actions);
}

nlohmann::json CommunityRounds::save_state() const {
  nlohmann::json communities = nlohmann::json::array();
  for (size_t c = 0; c < state_.size(); ++c) {
    communities.push_back({{"members", members(c)},
                           {"held", state_[c].held},
                           {"contributions", state_[c].contributions},
                           {"in_round", state_[c].in_round},
                           {"rounds", state_[c].rounds}});
  }
  nlohmann::json state = {{"live", live_},
                          {"aggregate_at_leader", grouping_.aggregate_at_leader},
                          {"communities", communities}};
  if (pending_) {
    state["pending"] = {{"communities", pending_->communities},
                        {"aggregate_at_leader", pending_->aggregate_at_leader}};
  }
  return state;
}

// Pulls and updates are routed by community_of_: every id the state names must be one of this
// run's workers, each in one community, every live one placed (found by fuzz/checkpoint.cpp);
// the pending grouping's ids too, each once, as it is installed mid-run.
void CommunityRounds::restore_state(const nlohmann::json& state) {
  const auto refuse = [&](const std::string& what) {
    throw std::invalid_argument(
        fmt::format("community rounds of {} workers: the saved state {}", workers_, what));
  };
  live_ = checkpoint::integers<std::set<int>>(state.at("live"));
  if (const auto outside = checkpoint::id_outside(live_, workers_)) {
    refuse(fmt::format("names worker {} of {} among its live workers", *outside, workers_));
  }
  grouping_ = {{}, state.at("aggregate_at_leader").get<bool>()};
  state_.clear();
  community_of_.assign(static_cast<size_t>(workers_), -1);
  for (const nlohmann::json& saved : state.at("communities")) {
    grouping_.communities.push_back(checkpoint::integers<std::vector<int>>(saved.at("members")));
  }
  if (const std::string defect = misplaced_worker(grouping_.communities, workers_);
      !defect.empty()) {
    refuse(defect + " in its communities");
  }
  for (const nlohmann::json& saved : state.at("communities")) {
    Community& community = state_.emplace_back();
    community.held = checkpoint::integers<std::set<int>>(saved.at("held"));
    community.contributions = checkpoint::integer_map<int, int>(saved.at("contributions"));
    community.in_round = saved.at("in_round").get<bool>();
    community.rounds = checkpoint::integer<int64_t>(saved.at("rounds"));
    const std::vector<int>& members = grouping_.communities[state_.size() - 1];
    for (int member : members) {
      community_of_[static_cast<size_t>(member)] = static_cast<int>(state_.size() - 1);
    }
    const auto is_member = [&](int worker) {
      return std::find(members.begin(), members.end(), worker) != members.end();
    };
    const bool foreign_held = !std::all_of(community.held.begin(), community.held.end(), is_member);
    const bool foreign_contribution =
        !std::all_of(community.contributions.begin(), community.contributions.end(),
                     [&](const auto& contribution) { return is_member(contribution.first); });
    if (foreign_held || foreign_contribution) {
      refuse("holds a pull or an update of a worker outside its community");
    }
  }
  for (int worker : live_) {
    if (community_of_[static_cast<size_t>(worker)] == -1) {
      refuse(fmt::format("leaves live worker {} out of every community", worker));
    }
  }
  pending_.reset();
  if (state.contains("pending")) {
    const nlohmann::json& pending = state.at("pending");
    Grouping grouping{{}, pending.at("aggregate_at_leader").get<bool>()};
    for (const nlohmann::json& members : pending.at("communities")) {
      grouping.communities.push_back(checkpoint::integers<std::vector<int>>(members));
    }
    if (const std::string defect = misplaced_worker(grouping.communities, workers_);
        !defect.empty()) {
      refuse(defect + " in its pending grouping");
    }
    pending_ = std::move(grouping);
  }
}

}  // namespace hetps::protocol
