#include "protocol/petrel.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "protocol/community_choice.h"
#include "protocol/dbscan.h"
#include "protocol/hybrids.h"
#include "protocol/param_specs.h"

namespace hetps::protocol {

Petrel::Petrel(PetrelOptions options) : options_(options), features_(1, options.window) {}

void Petrel::start(const RunShape& shape, Actions& actions) {
  workers_ = shape.workers;
  options_.seed = shape.seed;
  live_.clear();
  for (int w = 0; w < workers_; ++w) live_.insert(w);
  features_ = WorkerFeatures(workers_, options_.window);
  profiling_ = true;
  last_profile_time_ = 0;
  rounds_.emplace(workers_, options_.community_staleness, everyone());
  pending_record_ = nlohmann::json{{"reason", "profile"}};
  record_installed(actions);
}

Grouping Petrel::everyone() const {
  return Grouping{{std::vector<int>(live_.begin(), live_.end())}, false};
}

Grouping Petrel::communities_from_profile(std::optional<double>& silhouette) const {
  const std::vector<int> workers(live_.begin(), live_.end());
  const Points points = features_.normalized(workers);
  Memberships memberships;
  if (options_.dbscan) {
    memberships = dbscan(points, {options_.dbscan_eps, options_.dbscan_min_points});
  } else {
    CommunityChoice choice = choose_communities(
        points, {options_.max_communities, options_.homogeneity_threshold, options_.seed});
    memberships = std::move(choice.memberships);
    silhouette = choice.silhouette;
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

void Petrel::on_pull_request(int worker, Actions& actions) {
  rounds_->on_pull_request(worker, actions);
  record_installed(actions);
}

void Petrel::on_update(const UpdateInfo& update, Actions& actions) {
  // A leader's merged update carries its community's slowest step, not its own time.
  const bool merged = !update.members.empty();
  if (!merged && update.steps > 0) {
    features_.observe(update.worker, update.compute_seconds / update.steps, update.comm_seconds);
  }
  rounds_->on_update(update, actions);
  record_installed(actions);
  if (rounds_->quiescing()) return;
  if (profiling_) {
    const std::vector<int64_t> rounds = rounds_->rounds();
    if (!rounds.empty() && rounds.front() >= options_.profile_steps &&
        features_.unprofiled().empty()) {
      std::optional<double> silhouette;
      Grouping grouping = communities_from_profile(silhouette);
      profiling_ = false;
      last_profile_time_ = update.now;
      regroup(std::move(grouping), "profiled", silhouette, actions);
    }
    return;
  }
  if (update.now - last_profile_time_ >= options_.regroup_interval_s) {
    profiling_ = true;
    regroup(everyone(), "profile", std::nullopt, actions);
  }
}

void Petrel::regroup(Grouping grouping, const std::string& reason, std::optional<double> silhouette,
                     Actions& actions) {
  pending_record_ = nlohmann::json{{"reason", reason}};
  if (silhouette) (*pending_record_)["silhouette"] = *silhouette;
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
  rounds_->on_worker_failed(worker, actions);
  record_installed(actions);
}

nlohmann::json Petrel::save_state() const {
  nlohmann::json state = {{"live", live_},
                          {"features", features_.save_state()},
                          {"rounds", rounds_->save_state()},
                          {"profiling", profiling_},
                          {"last_profile_time", last_profile_time_}};
  if (pending_record_) state["pending_record"] = *pending_record_;
  return state;
}

void Petrel::restore_state(const nlohmann::json& state) {
  live_ = state.at("live").get<std::set<int>>();
  features_.restore_state(state.at("features"));
  rounds_->restore_state(state.at("rounds"));
  profiling_ = state.at("profiling").get<bool>();
  last_profile_time_ = state.at("last_profile_time").get<double>();
  pending_record_.reset();
  if (state.contains("pending_record")) pending_record_ = state.at("pending_record");
}

ProtocolInfo petrel_protocol() {
  return ProtocolInfo{
      "petrel",
      "Petrel: communities of similar workers, synchronous inside (aggregated at a leader), "
      "asynchronous between, regrouped from profiles",
      {
          number_param("profile_steps", 10, "BSP rounds over everyone that profile the workers", 1,
                       1e6, true),
          number_param("max_communities", 4, "K_max: the most communities the agent forms", 1, 1024,
                       true),
          word_param("grouping", "kmeans",
                     "how communities form: k-means with the agent's K, or DBSCAN",
                     {"kmeans", "dbscan"}),
          number_param("dbscan_eps", 0.3, "DBSCAN's radius over the normalized features", 1e-9,
                       1e9),
          number_param("dbscan_min_points", 2, "DBSCAN's neighbours that make a core point", 1, 1e6,
                       true),
          word_param("aggregate_at", "leader",
                     "where a community's updates are averaged: at its leader (one push per "
                     "round) or at the server",
                     {"leader", "server"}),
          number_param("community_staleness", -1,
                       "the most rounds a community may run ahead of another; -1 = unbounded", -1,
                       1e9, true),
          word_param("agent", "heuristic",
                     "the configuration agent: heuristic (silhouette over K = 2..K_max)",
                     {"heuristic"}),
          number_param("homogeneity_threshold", 0.15,
                       "one community when the step times' coefficient of variation is below", 0,
                       1e9),
          number_param("regroup_interval", 30, "seconds between two profilings and regroups", 1e-9,
                       1e12),
          number_param("window", 10, "samples in each worker's moving profile", 1, 1e6, true),
      },
      [](const config::ProtocolParams& params) {
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
        options.window = static_cast<int>(number(params, "window"));
        return std::make_unique<Petrel>(options);
      }};
}

}  // namespace hetps::protocol
