#include "protocol/petrel.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "checkpoint/saved_integers.h"
#include "protocol/community_choice.h"
#include "protocol/dbscan.h"
#include "protocol/hybrids.h"
#include "protocol/param_specs.h"
#include "protocol/silhouette.h"

namespace hetps::protocol {

Petrel::Petrel(PetrelOptions options)
    : options_(options),
      agent_(options.agent),
      features_(1, options.window),
      configuration_{1, options.community_staleness},
      recent_loss_(static_cast<size_t>(options.window)) {
  if (!agent_) {
    agent_ = std::make_shared<HeuristicAgent>(
        CommunityChoiceOptions{options.max_communities, options.homogeneity_threshold, 0},
        options.community_staleness);
  }
}

void Petrel::start(const RunShape& shape, Actions& actions) {
  workers_ = shape.workers;
  options_.seed = shape.seed;
  live_.clear();
  for (int w = 0; w < workers_; ++w) live_.insert(w);
  features_ = WorkerFeatures(workers_, options_.window);
  profiling_ = true;
  last_profile_time_ = 0;
  last_update_time_ = 0;
  configuration_ = {1, options_.community_staleness};
  decided_features_.clear();
  samples_since_decision_.clear();
  // The mean over about `window` rounds of every worker.
  recent_loss_ = MovingMean(static_cast<size_t>(options_.window * workers_));
  decision_loss_.reset();
  rounds_.emplace(workers_, options_.community_staleness, everyone());
  pending_record_ = nlohmann::json{{"reason", "profile"}};
  record_installed(actions);
}

Grouping Petrel::everyone() const {
  return Grouping{{std::vector<int>(live_.begin(), live_.end())}, false};
}

void Petrel::decide(double now, nlohmann::json record, Actions& actions) {
  const std::vector<int> workers(live_.begin(), live_.end());
  const Points points = features_.normalized(workers);
  measure_drift_from_here(workers, points);
  const double loss = recent_loss_.mean();
  const double slope =
      decision_loss_ && *decision_loss_ > 0 ? (loss - *decision_loss_) / *decision_loss_ : 0;
  decision_loss_ = loss;
  const CommunityConfiguration chosen = agent_->choose({.features = points,
                                                        .current = configuration_,
                                                        .loss_slope = slope,
                                                        .seed = options_.seed,
                                                        .now = now});
  // A learned agent's actions are those it was trained with: it may ask for more communities
  // than max_communities, or than there are live workers.
  const int most = std::min(options_.max_communities, static_cast<int>(workers.size()));
  const CommunityConfiguration installed = configuration_;
  configuration_ = {std::clamp(chosen.communities, 1, most), chosen.staleness};
  std::optional<double> silhouette;
  Grouping grouping = communities_of(workers, points, configuration_.communities, silhouette);
  // A drift that leaves the communities and their bound as they are needs no quiesce.
  if (record.at("reason") == "drift" && grouping == rounds_->grouping() &&
      configuration_.staleness == installed.staleness) {
    return;
  }
  record["staleness"] = configuration_.staleness == kUnbounded ? -1 : configuration_.staleness;
  if (silhouette) record["silhouette"] = *silhouette;
  set_staleness(configuration_.staleness);
  regroup(std::move(grouping), std::move(record), actions);
}

Grouping Petrel::communities_of(const std::vector<int>& workers, const Points& points,
                                int communities, std::optional<double>& silhouette) const {
  Memberships memberships{std::vector<int>(workers.size(), 0), 1};
  if (options_.dbscan) {
    memberships = dbscan(points, {options_.dbscan_eps, options_.dbscan_min_points});
  } else if (communities > 1) {
    memberships = kmeans(points, {.communities = communities, .seed = options_.seed});
    // With fewer distinct workers than K, k-means makes fewer communities.
    if (memberships.communities > 1) silhouette = silhouette_score(points, memberships);
  }
  Grouping grouping{std::vector<std::vector<int>>(static_cast<size_t>(memberships.communities)),
                    options_.aggregate_at_leader};
  for (size_t p = 0; p < workers.size(); ++p) {
    grouping.communities[static_cast<size_t>(memberships.community_of[p])].push_back(workers[p]);
  }
  // The member with the fastest link leads (the smallest round trip; the lower id on a tie).
  for (std::vector<int>& community : grouping.communities) {
    const auto round_trip = [&](int worker) {
      const auto p =
          static_cast<size_t>(std::find(workers.begin(), workers.end(), worker) - workers.begin());
      return points[p][kRoundTrip];
    };
    std::stable_sort(community.begin(), community.end(),
                     [&](int a, int b) { return round_trip(a) < round_trip(b); });
    std::sort(community.begin() + 1, community.end());
  }
  return grouping;
}

void Petrel::set_staleness(int64_t staleness) {
  // CommunityRounds takes its bound once, at construction, and its saved state holds everything
  // else: a copy under the new bound carries on exactly. Called right before a regroup, whose
  // quiesce starts no round, so no round starts under a bound between the two.
  CommunityRounds bounded = rounds_restored_from(rounds_->save_state(), staleness);
  rounds_ = std::move(bounded);
}

CommunityRounds Petrel::rounds_restored_from(const nlohmann::json& state, int64_t staleness) const {
  // Built as at a run's start, every worker alive, then given the state, which says who is.
  Grouping all{{std::vector<int>(static_cast<size_t>(workers_))}, false};
  std::iota(all.communities.front().begin(), all.communities.front().end(), 0);
  CommunityRounds rounds(workers_, staleness, std::move(all));
  rounds.restore_state(state);
  return rounds;
}

void Petrel::on_pull_request(int worker, Actions& actions) {
  rounds_->on_pull_request(worker, actions);
  record_installed(actions);
}

void Petrel::observe(const UpdateInfo& update) {
  if (update.steps <= 0) return;
  recent_loss_.add(update.train_loss);
  // A round trip measures a worker's link only while it talks to the server alone: in a
  // community aggregated at its leader, the leader's carries its members' models too and a
  // member's goes to its leader. There the profile keeps the round trip it had.
  const bool links_measured = !rounds_->grouping().aggregate_at_leader;
  if (update.members.empty()) {
    observe_worker(update.worker, update.compute_seconds / update.steps,
                   links_measured ? std::optional(update.comm_seconds) : std::nullopt);
    return;
  }
  if (update.merged_step_seconds.size() != update.members.size() + 1) {
    throw std::logic_error("petrel: leader " + std::to_string(update.worker) + "'s update has " +
                           std::to_string(update.merged_step_seconds.size()) +
                           " step times for itself and " + std::to_string(update.members.size()) +
                           " members");
  }
  observe_worker(update.worker, update.merged_step_seconds.front(), std::nullopt);
  for (size_t m = 0; m < update.members.size(); ++m) {
    observe_worker(update.members[m], update.merged_step_seconds[m + 1], std::nullopt);
  }
}

void Petrel::observe_worker(int worker, double step_seconds, std::optional<double> round_trip) {
  if (!round_trip) {
    if (!live_.contains(worker) || !features_.profiled(worker)) return;
    round_trip = features_.mean_round_trip_seconds(worker);
  }
  features_.observe(worker, step_seconds, *round_trip);
  ++samples_since_decision_[worker];
}

void Petrel::measure_drift_from_here(const std::vector<int>& workers, const Points& points) {
  decided_features_.clear();
  for (size_t p = 0; p < workers.size(); ++p) decided_features_[workers[p]] = points[p];
  samples_since_decision_.clear();
}

std::optional<std::pair<int, double>> Petrel::drift() const {
  if (options_.drift_threshold <= 0 || decided_features_.empty()) return std::nullopt;
  const std::vector<int> workers(live_.begin(), live_.end());
  // Until every window holds only samples from after the decision, it still mixes in those
  // the decision saw: one change would otherwise fire again and again as the windows fill.
  for (const int worker : workers) {
    const auto samples = samples_since_decision_.find(worker);
    if (samples == samples_since_decision_.end() || samples->second < options_.window) {
      return std::nullopt;
    }
  }
  const Points points = features_.normalized(workers);
  std::optional<std::pair<int, double>> most;
  for (size_t p = 0; p < workers.size(); ++p) {
    const auto decided = decided_features_.find(workers[p]);
    if (decided == decided_features_.end()) continue;
    double moved = 0;
    for (size_t f = 0; f < kFeatureCount; ++f) {
      const double now = points[p][f];
      const double then = decided->second[f];
      // A zero feature is one nobody has (no network time on a network-free simulation).
      if (now > 0 && then > 0) moved = std::max(moved, std::max(now / then, then / now) - 1);
    }
    if (moved > options_.drift_threshold && (!most || moved > most->second)) {
      most = {workers[p], moved};
    }
  }
  return most;
}

void Petrel::on_update(const UpdateInfo& update, Actions& actions) {
  last_update_time_ = update.now;
  observe(update);
  rounds_->on_update(update, actions);
  record_installed(actions);
  if (rounds_->quiescing()) return;
  if (profiling_) {
    const std::vector<int64_t> rounds = rounds_->rounds();
    if (!rounds.empty() && rounds.front() >= options_.profile_steps &&
        std::ranges::all_of(live_, [&](int worker) { return features_.profiled(worker); })) {
      profiling_ = false;
      last_profile_time_ = update.now;
      decide(update.now, {{"reason", "profiled"}}, actions);
    }
    return;
  }
  if (update.now - last_profile_time_ >= options_.regroup_interval_s) {
    profiling_ = true;
    decided_features_.clear();
    regroup(everyone(), {{"reason", "profile"}}, actions);
  } else if (const auto drifted = drift()) {
    decide(update.now,
           {{"reason", "drift"}, {"worker", drifted->first}, {"drift", drifted->second}}, actions);
  }
}

void Petrel::regroup(Grouping grouping, nlohmann::json record, Actions& actions) {
  pending_record_ = std::move(record);
  rounds_->regroup(std::move(grouping), actions);
  record_installed(actions);
}

void Petrel::record_installed(Actions& actions) {
  if (!pending_record_ || rounds_->quiescing()) return;
  nlohmann::json details = std::move(*pending_record_);
  pending_record_.reset();
  const Grouping& installed = rounds_->grouping();
  nlohmann::json leaders = nlohmann::json::array();
  for (const std::vector<int>& community : installed.communities)
    leaders.push_back(community.front());
  details["communities"] = installed.communities;
  details["leaders"] = leaders;
  details["aggregate_at"] = installed.aggregate_at_leader ? "leader" : "server";
  actions.record({"regroup", std::move(details)});
}

void Petrel::on_worker_failed(int worker, Actions& actions) {
  if (!live_.erase(worker)) return;
  features_.forget(worker);
  // The others' drift is still measured from the last decision: the median moved with this
  // death, and a move past the threshold regroups the survivors.
  decided_features_.erase(worker);
  samples_since_decision_.erase(worker);
  rounds_->on_worker_failed(worker, actions);
  record_installed(actions);
  // The communities were chosen with the dead worker among them: the agent chooses again for
  // the survivors. While profiling (everyone in one community, which has just shrunk) or
  // during a regroup, the next decision will see the survivors alone anyway.
  if (profiling_ || rounds_->quiescing() || live_.empty()) return;
  decide(last_update_time_, {{"reason", "failure"}, {"worker", worker}}, actions);
}

nlohmann::json Petrel::save_state() const {
  nlohmann::json state = {{"live", live_},
                          {"features", features_.save_state()},
                          {"rounds", rounds_->save_state()},
                          {"profiling", profiling_},
                          {"last_profile_time", last_profile_time_},
                          {"last_update_time", last_update_time_},
                          {"communities", configuration_.communities},
                          {"staleness", configuration_.staleness},
                          {"recent_loss", recent_loss_.save_state()},
                          {"decided_features", decided_features_},
                          {"samples_since_decision", samples_since_decision_}};
  if (pending_record_) state["pending_record"] = *pending_record_;
  if (decision_loss_) state["decision_loss"] = *decision_loss_;
  return state;
}

void Petrel::restore_state(const nlohmann::json& state) {
  live_ = checkpoint::integers<std::set<int>>(state.at("live"));
  features_.restore_state(state.at("features"));
  configuration_ = {checkpoint::integer<int>(state.at("communities")),
                    checkpoint::integer<int64_t>(state.at("staleness"))};
  rounds_ = rounds_restored_from(state.at("rounds"), configuration_.staleness);
  recent_loss_.restore_state(state.at("recent_loss"));
  // States saved before drift was measured have neither: no baseline, as while profiling.
  decided_features_.clear();
  samples_since_decision_.clear();
  if (state.contains("decided_features")) {
    decided_features_ =
        checkpoint::integer_map<int, std::vector<double>>(state.at("decided_features"));
    // drift() reads every feature of each.
    for (const auto& [worker, features] : decided_features_) {
      if (features.size() != kFeatureCount) {
        throw std::invalid_argument(
            fmt::format("petrel: the saved state holds {} features of worker {} at the last "
                        "decision; expected {}",
                        features.size(), worker, kFeatureCount));
      }
    }
    samples_since_decision_ = checkpoint::integer_map<int, int>(state.at("samples_since_decision"));
  }
  decision_loss_.reset();
  if (state.contains("decision_loss")) decision_loss_ = state.at("decision_loss").get<double>();
  profiling_ = state.at("profiling").get<bool>();
  last_profile_time_ = state.at("last_profile_time").get<double>();
  // States saved before failures regrouped: the next update sets it.
  last_update_time_ = state.value("last_update_time", last_profile_time_);
  pending_record_.reset();
  if (state.contains("pending_record")) pending_record_ = state.at("pending_record");
}

std::vector<ParamSpec> petrel_params() {
  return {
      number_param("profile_steps", 10, "BSP rounds over everyone that profile the workers", 1, 1e6,
                   true),
      // Not idle with DBSCAN: the learned agent's state holds its K over K_max.
      number_param("max_communities", 4, "K_max: the most communities the agent forms", 1, 1024,
                   true),
      word_param("grouping", "kmeans",
                 "how communities form: k-means with the agent's K, or DBSCAN",
                 {"kmeans", "dbscan"}),
      only_with(number_param("dbscan_eps", 0.3, "DBSCAN's radius over the normalized features",
                             1e-9, 1e9),
                "grouping", {"dbscan"}),
      only_with(number_param("dbscan_min_points", 2, "DBSCAN's neighbours that make a core point",
                             1, 1e6, true),
                "grouping", {"dbscan"}),
      word_param("aggregate_at", "leader",
                 "where a community's updates are averaged: at its leader (one push per "
                 "round) or at the server",
                 {"leader", "server"}),
      number_param("community_staleness", -1,
                   "the most rounds a community may run ahead of another: the heuristic agent's "
                   "bound, and the learned agent's until its first decision; -1 = unbounded",
                   -1, 1e9, true),
      word_param("agent", "heuristic",
                 "the configuration agent: heuristic (silhouette over K = 2..K_max) or learned "
                 "(the network in agent_file, from `hetps tune petrel`)",
                 {"heuristic", "learned"}),
      text_param("agent_file",
                 "the learned agent's file (hetps tune petrel --out); agent = learned"),
      number_param("traffic_penalty", 1e-9,
                   "the learned agent's reward: loss decrease per second minus this times bytes "
                   "to the server per second (hetps tune petrel trains and scores with it)",
                   0, 1e9),
      only_with(number_param("homogeneity_threshold", 0.15,
                             "one community when the step times' coefficient of variation is "
                             "below",
                             0, 1e9),
                "grouping", {"kmeans"}),
      number_param("regroup_interval", 30, "seconds between two profilings and regroups", 1e-9,
                   1e12),
      number_param("drift_threshold", 0.5,
                   "regroup when a worker's step time or round trip, relative to the median "
                   "worker's, changed by more than this factor minus 1 (0.5: grew 1.5x or "
                   "shrank to 1/1.5) since the last decision; 0 = never",
                   0, 1e9),
      number_param("window", 10, "samples in each worker's moving profile", 1, 1e6, true),
  };
}

PetrelOptions petrel_options(const config::ProtocolParams& params) {
  PetrelOptions options;
  options.profile_steps = static_cast<int>(number(params, "profile_steps"));
  options.max_communities = static_cast<int>(number(params, "max_communities"));
  options.dbscan = word(params, "grouping") == "dbscan";
  options.dbscan_eps = number(params, "dbscan_eps");
  options.dbscan_min_points = static_cast<int>(number(params, "dbscan_min_points"));
  options.aggregate_at_leader = word(params, "aggregate_at") == "leader";
  const double staleness = number(params, "community_staleness");
  options.community_staleness = staleness < 0 ? kUnbounded : static_cast<int64_t>(staleness);
  options.homogeneity_threshold = number(params, "homogeneity_threshold");
  options.regroup_interval_s = number(params, "regroup_interval");
  options.drift_threshold = number(params, "drift_threshold");
  options.window = static_cast<int>(number(params, "window"));
  return options;
}

ProtocolInfo petrel_protocol() {
  return ProtocolInfo{
      "petrel",
      "Petrel: communities of similar workers, synchronous inside (aggregated at a leader), "
      "asynchronous between, regrouped from profiles",
      petrel_params(), [](const config::ProtocolParams& params) {
        PetrelOptions options = petrel_options(params);
        const std::string& agent_file = word(params, "agent_file");
        if (word(params, "agent") == "learned") {
          if (agent_file.empty()) {
            throw std::invalid_argument(
                "protocol.agent = \"learned\" needs protocol.agent_file, the file `hetps tune "
                "petrel` writes; none was given");
          }
          options.agent = load_learned_agent(agent_file);
        } else if (!agent_file.empty()) {
          throw std::invalid_argument("protocol.agent_file = \"" + agent_file +
                                      "\" is for protocol.agent = \"learned\"; the agent is \"" +
                                      word(params, "agent") + "\"");
        }
        return std::make_unique<Petrel>(std::move(options));
      }};
}

}  // namespace hetps::protocol
