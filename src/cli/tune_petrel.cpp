#include "cli/tune_petrel.h"

#include <atomic>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/mpi_launch.h"
#include "cli/number_flags.h"
#include "cli/output_kinds.h"
#include "cli/petrel_episodes.h"
#include "cli/run_flags.h"
#include "cli/run_job.h"
#include "cli/stop_signals.h"
#include "cli/usage_error.h"
#include "config/atomic_file.h"
#include "model/actor_critic.h"
#include "model/learned_agent.h"
#include "model/model_source.h"
#include "protocol/community_choice.h"
#include "protocol/param_specs.h"
#include "protocol/petrel.h"

namespace hetps::cli {
namespace fs = std::filesystem;
namespace {

struct TunePetrelFlags {
  RunFlags run;
  int episodes = 200;
  int threads = 2;
  int held_out = 5;
};

// Training episode e draws its cluster from seed × kSeedStride + e, held-out cluster h from
// seed × kSeedStride + kHeldOut + h: no held-out cluster is one trained on.
constexpr uint64_t kSeedStride = uint64_t{1} << 32;
constexpr uint64_t kHeldOut = uint64_t{1} << 31;
constexpr int kMostEpisodes = 1 << 30;

uint64_t training_seed(uint64_t seed, int episode) {
  return seed * kSeedStride + static_cast<uint64_t>(episode);
}
uint64_t held_out_seed(uint64_t seed, int cluster) {
  return seed * kSeedStride + kHeldOut + static_cast<uint64_t>(cluster);
}

// The A3C runners: `threads` threads share the episodes, each with its own copy of the network.
// `stop` (SIGINT, SIGTERM) ends the training after the episodes going on (about a second each):
// RunInterrupted, with nothing written.
void train_agent(PetrelEpisodes& episodes, model::A3CLearner& learner,
                 const protocol::ConfigurationSpace& space, const TunePetrelFlags& flags,
                 const StopSignals& stop) {
  const uint64_t seed = episodes.job().seed;
  std::atomic<int> next{0};
  std::atomic<int> finished{0};
  std::mutex report;  // the progress lines and the first failure
  std::exception_ptr failure;
  const auto runner = [&] {
    try {
      model::ActorCritic local = learner.copy();
      for (int e = next++; e < flags.episodes && !stop.requested(); e = next++) {
        // The actions' draws: a stream apart from the cluster's (the seed's complement).
        model::ExploringAgent agent(local, space, ~training_seed(seed, e));
        const EpisodeOutcome outcome = episodes.run(training_seed(seed, e), agent);
        std::vector<model::Transition> transitions;
        for (size_t d = 0; d < agent.decisions().size(); ++d) {
          transitions.push_back(
              {agent.decisions()[d].state, agent.decisions()[d].action, outcome.rewards[d]});
        }
        ++finished;
        if (transitions.empty()) continue;  // a run too short to decide in teaches nothing
        const model::EpisodeLoss loss = learner.learn(local, transitions);
        if (flags.run.quiet) continue;
        std::lock_guard lock(report);
        fmt::print(
            "[{}/{}] {} decisions, reward {:.4f} (policy loss {:.4f}, value loss {:.4f}, "
            "entropy {:.3f})\n",
            e + 1, flags.episodes, transitions.size(), outcome.total_reward, loss.policy,
            loss.value, loss.entropy);
        std::fflush(stdout);  // progress, also when stdout is a file
      }
    } catch (...) {
      std::lock_guard lock(report);
      if (!failure) failure = std::current_exception();
      next = flags.episodes;  // the other runners stop after their episode
    }
  };
  std::vector<std::jthread> runners;
  for (int t = 0; t < flags.threads; ++t) runners.emplace_back(runner);
  runners.clear();  // joins
  if (failure) std::rethrow_exception(failure);
  if (stop.requested()) {
    throw RunInterrupted(fmt::format(
        "stopped by {} after {} of {} training episodes; no agent file was written (an agent "
        "is saved once its training is done)",
        stop.signal_name(), finished.load(), flags.episodes));
  }
}

nlohmann::json outcome_json(const EpisodeOutcome& outcome) {
  return {{"reward", outcome.total_reward},
          {"decisions", outcome.rewards.size()},
          {"final_loss", outcome.final_loss},
          {"final_accuracy", outcome.final_accuracy},
          {"time_to_target", outcome.time_to_target ? nlohmann::json(*outcome.time_to_target)
                                                    : nlohmann::json(nullptr)},
          {"total_time", outcome.total_time},
          {"bytes_to_server", outcome.bytes_to_server}};
}

std::string time_text(const std::optional<double>& time) {
  return time ? fmt::format("{:.2f}", *time) : "-";
}

// The learned agent (as `train` loads it from `file`) against the heuristic on the held-out
// clusters; prints the table and returns it.
nlohmann::json compare_agents(PetrelEpisodes& episodes, const fs::path& file,
                              const TunePetrelFlags& flags, const StopSignals& stop) {
  const protocol::PetrelOptions petrel = protocol::petrel_options(episodes.job().protocol.params);
  protocol::HeuristicAgent heuristic({petrel.max_communities, petrel.homogeneity_threshold, 0},
                                     petrel.community_staleness);
  model::LearnedAgent learned(model::load_agent_file(file));
  nlohmann::json clusters = nlohmann::json::array();
  double heuristic_sum = 0;
  double learned_sum = 0;
  fmt::print("\n{:>8} {:>5} | {:>10} {:>9} {:>7} | {:>10} {:>9} {:>7}\n", "cluster", "tiers",
             "heuristic", "loss", "target", "learned", "loss", "target");
  for (int h = 0; h < flags.held_out; ++h) {
    if (stop.requested()) {
      throw RunInterrupted(
          fmt::format("stopped by {} while comparing the agents; the agent file {} is written, its "
                      "evaluation is not",
                      stop.signal_name(), file.string()));
    }
    const uint64_t seed = held_out_seed(episodes.job().seed, h);
    const EpisodeOutcome by_heuristic = episodes.run(seed, heuristic);
    const EpisodeOutcome by_learned = episodes.run(seed, learned);
    const int tiers = draw_cluster(episodes.job().cluster.workers, seed).tiers;
    fmt::print("{:>8} {:>5} | {:>10.4f} {:>9.4f} {:>7} | {:>10.4f} {:>9.4f} {:>7}\n", h, tiers,
               by_heuristic.total_reward, by_heuristic.final_loss,
               time_text(by_heuristic.time_to_target), by_learned.total_reward,
               by_learned.final_loss, time_text(by_learned.time_to_target));
    heuristic_sum += by_heuristic.total_reward;
    learned_sum += by_learned.total_reward;
    clusters.push_back({{"seed", seed},
                        {"tiers", tiers},
                        {"heuristic", outcome_json(by_heuristic)},
                        {"learned", outcome_json(by_learned)}});
  }
  const double n = flags.held_out;
  fmt::print("mean reward: heuristic {:.4f}, learned {:.4f}\n", heuristic_sum / n, learned_sum / n);
  return {{"episodes", flags.episodes},
          {"traffic_penalty", protocol::number(episodes.job().protocol.params, "traffic_penalty")},
          {"mean_reward", {{"heuristic", heuristic_sum / n}, {"learned", learned_sum / n}}},
          {"clusters", clusters}};
}

// Throws unless `file` is an evaluation that compare_agents wrote.
void read_evaluation_file(const fs::path& file) {
  std::ifstream in(file);
  const nlohmann::json evaluation = nlohmann::json::parse(in);
  for (const char* key : {"episodes", "mean_reward", "clusters"}) {
    if (!evaluation.contains(key)) throw std::runtime_error(fmt::format("no {}", key));
  }
}

void tune_petrel(const TunePetrelFlags& flags) {
  config::UserSettings settings;
  if (!flags.run.config_file.empty()) settings.add_file(flags.run.config_file);
  for (const std::string& assignment : flags.run.sets) settings.add_set(assignment);
  add_episode_defaults(settings);
  refuse_setting(settings, "protocol.name",
                 "hetps tune petrel trains Petrel's agent on Petrel episodes; leave protocol.name "
                 "out");
  // Each episode decides with the agent being trained: an agent of the user's would do nothing.
  for (const char* key : {"protocol.agent", "protocol.agent_file"}) {
    refuse_setting(settings, key,
                   fmt::format("hetps tune petrel trains the agent its episodes decide with; "
                               "leave {} out (train takes the agent file it writes)",
                               key));
  }
  for (const char* key : {"cluster.speeds", "cluster.link_gbps", "cluster.link_latency_ms"}) {
    refuse_setting(settings, key,
                   fmt::format("hetps tune petrel draws each episode's speeds and links (1-3 "
                               "tiers of cluster.workers workers); leave {} out",
                               key));
  }
  // An episode runs in memory: it writes no run directory, timeline or checkpoint.
  for (const char* key :
       {"run.name", "run.checkpoint_interval", "run.checkpoint_keep", "run.timeline_intervals"}) {
    refuse_setting(
        settings, key,
        fmt::format("hetps tune petrel's episodes write no run directory; leave {} out", key));
  }
  PetrelEpisodes episodes(std::move(settings));
  check_names(episodes.job());
  if (episodes.job().engine != "sim") {
    throw UsageError(fmt::format(
        "engine = \"{}\": hetps tune petrel trains on simulator episodes (engine = \"sim\"); "
        "the agent file it writes then serves train on any engine",
        episodes.job().engine));
  }
  // Seeds from 2^31 on would draw held-out clusters whose seeds pass 2^63, which a TOML
  // integer (the episode's config) cannot hold.
  if (episodes.job().seed >= kHeldOut) {
    throw UsageError(fmt::format(
        "seed = {}: hetps tune petrel draws episode clusters from seed × 2^32 + episode, so the "
        "seed must be below 2^31",
        episodes.job().seed));
  }
  const fs::path out = flags.run.out.empty() ? "runs/tune-petrel/agent.pt" : flags.run.out;
  check_output_file(out, "--out", "an agent file",
                    [](const fs::path& file) { model::load_agent_file(file); });
  const fs::path evaluation_file = fs::path(out).concat(".evaluation.json");
  check_output_file(evaluation_file, "--out", "an agent's evaluation file", read_evaluation_file);
  // Each runner is one thread of work: libtorch's own pools would only contend.
  model::set_compute_threads(1);

  const protocol::ConfigurationSpace space(
      protocol::petrel_options(episodes.job().protocol.params).max_communities,
      protocol::default_staleness_choices());
  model::A3CLearner learner(
      {static_cast<int>(protocol::state_size(space)), static_cast<int>(space.size())},
      episodes.job().seed, {});
  const StopSignals signals;
  train_agent(episodes, learner, space, flags, signals);

  if (out.has_parent_path()) fs::create_directories(out.parent_path());
  // An earlier agent's evaluation must not stay beside the new agent, were the comparison
  // stopped before its own is written.
  fs::remove(evaluation_file);
  model::save_agent_file(out, learner.copy(), space);
  const nlohmann::json evaluation = compare_agents(episodes, out, flags, signals);
  config::write_file_atomically(evaluation_file, evaluation.dump(2) + '\n', "evaluation file");
  fmt::print("agent file: {}\nevaluation: {}\n", out.string(), evaluation_file.string());
}

}  // namespace

void add_tune_petrel_command(CLI::App& tune) {
  CLI::App* command = tune.add_subcommand(
      "petrel",
      "Train Petrel's learned configuration agent (A3C over simulator episodes on random "
      "clusters), write the file train takes as protocol.agent_file, and compare it with the "
      "heuristic agent on held-out clusters");
  auto flags = std::make_shared<TunePetrelFlags>();
  add_run_flags(*command, flags->run);
  command->get_option("--out")
      ->description("The agent file to write (default runs/tune-petrel/agent.pt)")
      ->type_name("FILE");
  command->get_option("--quiet")->description(
      "Print no progress, only errors and the result (the comparison on held-out clusters)");
  command->remove_option(command->get_option("--force"));
  command->add_option("--episodes", flags->episodes, "Training episodes")
      ->transform(number_within(1, kMostEpisodes, /*whole=*/true))
      ->capture_default_str();
  command->add_option("--threads", flags->threads, "Episode runners training at once (A3C)")
      ->transform(number_within(1, 256, /*whole=*/true))
      ->capture_default_str();
  command->add_option("--held-out", flags->held_out, "Held-out clusters of the comparison")
      ->transform(number_within(1, 1000, /*whole=*/true))
      ->capture_default_str();
  command->callback([flags] {
    refuse_several_ranks("tune petrel", "start it without mpirun: a search runs in one process");
    tune_petrel(*flags);
  });
}

}  // namespace hetps::cli
