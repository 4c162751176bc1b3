#include "cli/petrel_episodes.h"

#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/run_job.h"
#include "config/resolve.h"
#include "data/random.h"
#include "protocol/decision_rewards.h"
#include "protocol/param_specs.h"
#include "protocol/petrel.h"

namespace hetps::cli {
namespace {

constexpr const char* kEpisodesOrigin = "hetps tune petrel";
constexpr const char* kEpisodeProtocol = "petrel_episode";

// The run's evaluations, which score the decisions.
class EvaluationTrail : public engine::RunListener {
 public:
  void on_eval(const metrics::EvalRecord& record) override {
    points.push_back({record.time, record.test_loss, record.bytes_to_server});
  }
  void on_event(const nlohmann::json&) override {}

  std::vector<protocol::EvaluationPoint> points;
};

// Remembers when the agent it stands for decided.
class TimedAgent : public protocol::CommunityAgent {
 public:
  explicit TimedAgent(protocol::CommunityAgent& agent) : agent_(agent) {}
  protocol::CommunityConfiguration choose(const protocol::AgentObservation& observation) override {
    times.push_back(observation.now);
    return agent_.choose(observation);
  }
  std::vector<double> times;

 private:
  protocol::CommunityAgent& agent_;
};

std::string toml_array(const std::vector<double>& values) {
  return fmt::format("[{}]", fmt::join(values, ", "));
}

}  // namespace

EpisodeCluster draw_cluster(int workers, uint64_t seed) {
  std::mt19937_64 rng(seed);
  EpisodeCluster cluster;
  cluster.tiers = 1 + static_cast<int>(data::uniform_below(rng, 3));
  std::vector<double> speed(static_cast<size_t>(cluster.tiers), 1.0);
  std::vector<bool> slow_link(speed.size(), false);
  for (size_t tier = 0; tier < speed.size(); ++tier) {
    if (tier > 0) speed[tier] = std::exp2(data::uniform_between(rng, -3, 0));
    slow_link[tier] = data::uniform_below(rng, 3) == 0;
  }
  for (int w = 0; w < workers; ++w) {
    const auto tier = static_cast<size_t>(data::uniform_below(rng, speed.size()));
    cluster.speeds.push_back(speed[tier]);
    cluster.link_gbps.push_back(slow_link[tier] ? 0.5 : 10);
    cluster.link_latency_ms.push_back(slow_link[tier] ? 2 : 0.05);
  }
  return cluster;
}

void add_episode_defaults(config::UserSettings& settings) {
  std::vector<std::pair<const char*, const char*>> defaults = {
      {"train.max_samples", "12000"},
      {"train.eval_interval", "0.05"},
      {"protocol.profile_steps", "3"},
      {"protocol.regroup_interval", "0.3"}};
  // The generated set's sizes only with the generated set: with another, they would be refused
  // as doing nothing.
  config::Config asked;
  settings.apply_to(asked);
  const bool data_set_given = settings.where_set("data.name").has_value();
  if (!data_set_given) defaults.emplace_back("data.name", "synthetic");
  if (!data_set_given || asked.data.name == "synthetic") {
    defaults.emplace_back("data.synthetic_train", "1024");
    defaults.emplace_back("data.synthetic_test", "256");
  }
  for (const auto& [key, value] : defaults) {
    if (!settings.where_set(key)) settings.add(key, value, kEpisodesOrigin);
  }
}

PetrelEpisodes::PetrelEpisodes(config::UserSettings settings)
    : settings_(std::move(settings)),
      registration_(protocol::ProtocolInfo{
          kEpisodeProtocol, "Petrel with the agent of a `hetps tune petrel` episode",
          [] {
            std::vector<protocol::ParamSpec> params = protocol::petrel_params();
            params.push_back(protocol::number_param("episode", 0, "the episode whose agent decides",
                                                    0, 1e15, true));
            return params;
          }(),
          [this](const config::ProtocolParams& params) {
            protocol::PetrelOptions options = protocol::petrel_options(params);
            // Not owned (the aliasing constructor with no owner): the episode's caller keeps
            // its agent, which outlives the run.
            options.agent = std::shared_ptr<protocol::CommunityAgent>(
                std::shared_ptr<void>(),
                &agent_of(static_cast<uint64_t>(protocol::number(params, "episode"))));
            return std::make_unique<protocol::Petrel>(std::move(options));
          }}) {
  settings_.add_string("protocol.name", kEpisodeProtocol, kEpisodesOrigin);
  job_ = config::resolve(settings_);
}

config::Config PetrelEpisodes::config_for(uint64_t cluster_seed, uint64_t episode) const {
  const EpisodeCluster cluster = draw_cluster(job_.cluster.workers, cluster_seed);
  config::UserSettings settings = settings_;
  settings.add("cluster.speeds", toml_array(cluster.speeds), kEpisodesOrigin);
  settings.add("cluster.link_gbps", toml_array(cluster.link_gbps), kEpisodesOrigin);
  settings.add("cluster.link_latency_ms", toml_array(cluster.link_latency_ms), kEpisodesOrigin);
  settings.add("seed", fmt::format("{}", cluster_seed), kEpisodesOrigin);
  settings.add("protocol.episode", fmt::format("{}", episode), kEpisodesOrigin);
  return config::resolve(settings);
}

protocol::CommunityAgent& PetrelEpisodes::agent_of(uint64_t episode) {
  std::lock_guard lock(mutex_);
  return *agents_.at(episode);
}

// The running episode's agent, findable under its number while this lives.
class PetrelEpisodes::AgentSlot {
 public:
  AgentSlot(PetrelEpisodes& episodes, protocol::CommunityAgent& agent) : episodes_(episodes) {
    std::lock_guard lock(episodes_.mutex_);
    episode_ = episodes_.next_episode_++;
    episodes_.agents_[episode_] = &agent;
  }
  ~AgentSlot() {
    std::lock_guard lock(episodes_.mutex_);
    episodes_.agents_.erase(episode_);
  }
  AgentSlot(const AgentSlot&) = delete;
  AgentSlot& operator=(const AgentSlot&) = delete;
  uint64_t episode() const { return episode_; }

 private:
  PetrelEpisodes& episodes_;
  uint64_t episode_ = 0;
};

EpisodeOutcome PetrelEpisodes::run(uint64_t cluster_seed, protocol::CommunityAgent& agent) {
  TimedAgent timed(agent);
  EvaluationTrail trail;
  metrics::Summary summary;
  {
    const AgentSlot slot(*this, timed);
    summary = train_job(config_for(cluster_seed, slot.episode()), trail);
  }
  EpisodeOutcome outcome;
  outcome.decision_times = timed.times;
  outcome.final_loss = trail.points.empty() ? 0 : trail.points.back().test_loss;
  outcome.final_accuracy = summary.final_accuracy;
  outcome.time_to_target = summary.time_to_target;
  outcome.total_time = summary.total_time;
  outcome.bytes_to_server = summary.bytes_to_server;
  outcome.rewards =
      protocol::decision_rewards(timed.times, trail.points, summary.total_time,
                                 protocol::number(job_.protocol.params, "traffic_penalty"));
  for (const double reward : outcome.rewards) outcome.total_reward += reward;
  return outcome;
}

}  // namespace hetps::cli
