// Petrel's learned configuration agent (spec/petrel.md, "Configuration agent"): an
// actor-critic network and its A3C training [Mnih et al., ICML 2016]. This header includes no
// libtorch (compile time; every libtorch use is in actor_critic.cpp).
//
// The network: two tanh layers of `hidden` units shared by a policy head (a softmax over the
// actions) and a value head (the expected return of the state).
//
// A3C: several episode runners, each on its own thread with its own copy of the network, play
// episodes with actions drawn from their copy's policy. After an episode a runner computes, on
// its copy, the gradient of
//   Σ_t −log π(a_t | s_t)·A_t + value_weight·(R_t − V(s_t))² − entropy_weight·H(π(· | s_t))
// (means over the episode), with R_t = r_t + discount·R_{t+1} the discounted return (0 after
// the last step) of the rewards clipped to ±reward_clip (as A3C clips its Atari rewards: one
// run whose loss diverges would otherwise outweigh every other in the update) and A_t = R_t −
// V(s_t) the advantage, held constant; then applies it to the shared network with the shared
// optimizer (Adam) and takes the shared weights back. Runners apply asynchronously, one optimizer
// step at a time (a lock around the step), so a runner's gradient may come from weights a few steps
// old, as in A3C.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "protocol/community_agent.h"

namespace hetps::model {

struct AgentFile;

struct ActorCriticShape {
  int state_size = 0;  // >= 1
  int actions = 0;     // >= 1
  int hidden = 64;     // >= 1

  bool operator==(const ActorCriticShape&) const = default;
};

struct PolicyOutput {
  std::vector<double> probabilities;  // by action, summing to 1
  double value = 0;
};

class ActorCritic {
 public:
  // Initial weights drawn from `seed` alone. Throws std::invalid_argument naming a size < 1.
  ActorCritic(ActorCriticShape shape, uint64_t seed);
  ~ActorCritic();
  ActorCritic(ActorCritic&&) noexcept;
  ActorCritic& operator=(ActorCritic&&) noexcept;

  const ActorCriticShape& shape() const { return shape_; }
  // Throws std::invalid_argument when `state` is not shape().state_size long.
  PolicyOutput evaluate(std::span<const float> state) const;
  // Takes `other`'s weights (of the same shape).
  void copy_weights_from(const ActorCritic& other);

 private:
  friend class A3CLearner;
  friend void save_agent_file(const std::filesystem::path&, const ActorCritic&,
                              const protocol::ConfigurationSpace&);
  friend AgentFile load_agent_file(const std::filesystem::path&);
  struct Net;

  ActorCriticShape shape_;
  std::unique_ptr<Net> net_;
};

struct Transition {
  std::vector<float> state;
  int action = 0;
  double reward = 0;
};

struct A3COptions {
  double learning_rate = 3e-3;
  double discount = 0.9;
  double value_weight = 0.5;
  double entropy_weight = 0.01;
  double reward_clip = 5;  // > 0; infinity for none
};

// One episode's terms of the loss, for progress displays.
struct EpisodeLoss {
  double policy = 0;
  double value = 0;
  double entropy = 0;
};

// The shared network and its optimizer. Every method may be called from any thread.
class A3CLearner {
 public:
  A3CLearner(ActorCriticShape shape, uint64_t seed, A3COptions options);
  ~A3CLearner();

  // A runner's own copy of the shared network, as it is now.
  ActorCritic copy() const;
  // The A3C update of one episode (see the top of this file); afterwards `local` holds the
  // shared weights. Throws std::invalid_argument for an empty episode, a state of the wrong
  // length or an action outside the shape.
  EpisodeLoss learn(ActorCritic& local, std::span<const Transition> episode);

 private:
  struct Optimizer;

  A3COptions options_;
  mutable std::mutex mutex_;
  ActorCritic shared_;
  std::unique_ptr<Optimizer> optimizer_;
};

// A learned agent's file: the network and the actions its outputs stand for.
struct AgentFile {
  ActorCritic network;
  protocol::ConfigurationSpace space;
};

// Writes the file atomically (a temporary file beside it, then a rename), so a reader never
// sees half a file. Throws std::runtime_error naming the file when it cannot be written.
void save_agent_file(const std::filesystem::path& file, const ActorCritic& network,
                     const protocol::ConfigurationSpace& space);
// Throws std::invalid_argument naming the file when it is missing, not an agent file, or its
// network does not fit its actions and the state they imply.
AgentFile load_agent_file(const std::filesystem::path& file);

}  // namespace hetps::model
