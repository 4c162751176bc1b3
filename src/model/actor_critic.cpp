// The only file of the learned agent that includes libtorch: network, A3C update and file.
#include "model/actor_critic.h"

#include <torch/torch.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "data/file_kind.h"
#include "params/fnv1a.h"

namespace hetps::model {

struct ActorCritic::Net : torch::nn::Module {
  explicit Net(const ActorCriticShape& shape)
      : hidden1(register_module("hidden1", torch::nn::Linear(shape.state_size, shape.hidden))),
        hidden2(register_module("hidden2", torch::nn::Linear(shape.hidden, shape.hidden))),
        policy(register_module("policy", torch::nn::Linear(shape.hidden, shape.actions))),
        value(register_module("value", torch::nn::Linear(shape.hidden, 1))) {}

  // Logits [T, actions] and values [T] of states [T, state_size].
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& states) {
    const torch::Tensor features = torch::tanh(hidden2(torch::tanh(hidden1(states))));
    return {policy(features), value(features).squeeze(1)};
  }

  // Weights uniform in ±1/√fan_in (libtorch's Linear default) from a generator of our own, so
  // that the seed alone decides them; zero biases; a policy head 100 times smaller, so that the
  // first policy is close to uniform and every action gets tried.
  void initialize(uint64_t seed) {
    torch::NoGradGuard no_grad;
    at::Generator generator = at::detail::createCPUGenerator(seed);
    for (torch::nn::Linear* layer : {&hidden1, &hidden2, &policy, &value}) {
      const double bound = 1.0 / std::sqrt(static_cast<double>((*layer)->options.in_features()));
      const double scale = layer == &policy ? 0.01 : 1.0;
      (*layer)->weight.uniform_(-bound * scale, bound * scale, generator);
      (*layer)->bias.zero_();
    }
  }

  torch::nn::Linear hidden1, hidden2, policy, value;
};

namespace {

void check_network_shape(const ActorCriticShape& shape) {
  for (const auto& [name, size] :
       {std::pair{"state size", shape.state_size}, std::pair{"actions", shape.actions},
        std::pair{"hidden units", shape.hidden}}) {
    if (size < 1) {
      throw std::invalid_argument(
          fmt::format("actor-critic network: {} = {}; it must be at least 1", name, size));
    }
  }
}

torch::Tensor states_tensor(std::span<const std::vector<float>* const> states, int state_size) {
  torch::Tensor tensor = torch::empty({static_cast<int64_t>(states.size()), state_size});
  for (size_t t = 0; t < states.size(); ++t) {
    if (states[t]->size() != static_cast<size_t>(state_size)) {
      throw std::invalid_argument(
          fmt::format("actor-critic network: a state of {} values; the network takes {}",
                      states[t]->size(), state_size));
    }
    std::copy(states[t]->begin(), states[t]->end(),
              tensor[static_cast<int64_t>(t)].data_ptr<float>());
  }
  return tensor;
}

}  // namespace

ActorCritic::ActorCritic(ActorCriticShape shape, uint64_t seed) : shape_(shape) {
  check_network_shape(shape_);
  net_ = std::make_unique<Net>(shape_);
  net_->initialize(seed);
}

ActorCritic::~ActorCritic() = default;
ActorCritic::ActorCritic(ActorCritic&&) noexcept = default;
ActorCritic& ActorCritic::operator=(ActorCritic&&) noexcept = default;

PolicyOutput ActorCritic::evaluate(std::span<const float> state) const {
  torch::NoGradGuard no_grad;
  const std::vector<float> copy(state.begin(), state.end());
  const std::vector<float>* states[] = {&copy};
  const auto [logits, values] = net_->forward(states_tensor(states, shape_.state_size));
  const torch::Tensor probabilities = torch::softmax(logits[0], 0).to(torch::kDouble).contiguous();
  const double* p = probabilities.data_ptr<double>();
  return {std::vector<double>(p, p + shape_.actions), values[0].item<double>()};
}

void ActorCritic::copy_weights_from(const ActorCritic& other) {
  torch::NoGradGuard no_grad;
  const auto from = other.net_->parameters();
  const auto to = net_->parameters();
  for (size_t i = 0; i < to.size(); ++i) to[i].copy_(from[i]);
}

struct A3CLearner::Optimizer {
  explicit Optimizer(ActorCritic::Net& net, double learning_rate)
      : adam(net.parameters(), torch::optim::AdamOptions(learning_rate)) {}
  torch::optim::Adam adam;
};

A3CLearner::A3CLearner(ActorCriticShape shape, uint64_t seed, A3COptions options)
    : options_(options),
      shared_(shape, seed),
      optimizer_(std::make_unique<Optimizer>(*shared_.net_, options.learning_rate)) {}

A3CLearner::~A3CLearner() = default;

ActorCritic A3CLearner::copy() const {
  std::lock_guard lock(mutex_);
  ActorCritic local(shared_.shape(), 0);
  local.copy_weights_from(shared_);
  return local;
}

EpisodeLoss A3CLearner::learn(ActorCritic& local, std::span<const Transition> episode) {
  if (episode.empty()) throw std::invalid_argument("A3C: an episode without a step");
  const ActorCriticShape& shape = local.shape();
  std::vector<const std::vector<float>*> states;
  std::vector<int64_t> actions;
  std::vector<float> returns(episode.size());
  double future = 0;
  for (size_t t = episode.size(); t-- > 0;) {
    future = std::clamp(episode[t].reward, -options_.reward_clip, options_.reward_clip) +
             options_.discount * future;
    returns[t] = static_cast<float>(future);
  }
  for (const Transition& step : episode) {
    if (step.action < 0 || step.action >= shape.actions) {
      throw std::invalid_argument(
          fmt::format("A3C: action {} is not in 0 ... {}", step.action, shape.actions - 1));
    }
    states.push_back(&step.state);
    actions.push_back(step.action);
  }
  const auto [logits, values] = local.net_->forward(states_tensor(states, shape.state_size));
  const torch::Tensor log_probabilities = torch::log_softmax(logits, 1);
  const torch::Tensor taken =
      log_probabilities.gather(1, torch::tensor(actions).unsqueeze(1)).squeeze(1);
  const torch::Tensor target = torch::tensor(returns);
  const torch::Tensor advantages = (target - values).detach();
  const torch::Tensor policy_loss = -(taken * advantages).mean();
  const torch::Tensor value_loss = (target - values).pow(2).mean();
  const torch::Tensor entropy = -(log_probabilities.exp() * log_probabilities).sum(1).mean();
  const torch::Tensor loss =
      policy_loss + options_.value_weight * value_loss - options_.entropy_weight * entropy;
  local.net_->zero_grad();
  loss.backward();

  std::lock_guard lock(mutex_);
  const auto shared = shared_.net_->parameters();
  const auto computed = local.net_->parameters();
  for (size_t i = 0; i < shared.size(); ++i) shared[i].mutable_grad() = computed[i].grad().clone();
  optimizer_->adam.step();
  local.copy_weights_from(shared_);
  return {policy_loss.item<double>(), value_loss.item<double>(), entropy.item<double>()};
}

namespace {

constexpr int64_t kFileVersion = 2;
constexpr int64_t kOldestFileVersion = 1;
// Version 1 files, from before the weights' digest, are still read, unchecked.
constexpr int64_t kFirstVersionWithDigest = 2;
constexpr const char* kAgentFormat = "hetps-petrel-agent";

// The weights' bytes in order, as 64-bit FNV-1a (stored as the int64 of the same bits): libtorch
// reads an archive's tensors without checking their bytes, so a damaged weight would load and
// steer the agent.
int64_t weights_digest(const std::vector<torch::Tensor>& weights) {
  uint64_t hash = params::kFnv1aStart;
  for (const torch::Tensor& tensor : weights) {
    const torch::Tensor values = tensor.detach().to(torch::kCPU).contiguous();
    hash = params::fnv1a({static_cast<const char*>(values.data_ptr()),
                          static_cast<size_t>(values.numel()) * values.element_size()},
                         hash);
  }
  return std::bit_cast<int64_t>(hash);
}

// The staleness choices as stored: kUnbounded as −1, as `protocol.community_staleness` says it.
torch::Tensor stored_choices(const std::vector<int64_t>& choices) {
  std::vector<int64_t> stored;
  for (const int64_t bound : choices) stored.push_back(bound == protocol::kUnbounded ? -1 : bound);
  return torch::tensor(stored);
}

std::vector<int64_t> loaded_choices(const torch::Tensor& stored) {
  std::vector<int64_t> choices;
  for (int64_t i = 0; i < stored.numel(); ++i) {
    const int64_t bound = stored[i].item<int64_t>();
    choices.push_back(bound == -1 ? protocol::kUnbounded : bound);
  }
  return choices;
}

// The format's name as a tensor of its characters: archives hold tensors only.
torch::Tensor text_tensor(const std::string& text) {
  std::vector<int64_t> characters(text.begin(), text.end());
  return torch::tensor(characters);
}

}  // namespace

void save_agent_file(const std::filesystem::path& file, const ActorCritic& network,
                     const protocol::ConfigurationSpace& space) {
  torch::serialize::OutputArchive archive;
  archive.write("format", text_tensor(kAgentFormat));
  archive.write("version", torch::tensor(kFileVersion));
  const ActorCriticShape& shape = network.shape();
  archive.write("shape",
                torch::tensor(std::vector<int64_t>{shape.state_size, shape.actions, shape.hidden}));
  archive.write("max_communities", torch::tensor(int64_t{space.max_communities()}));
  archive.write("staleness_choices", stored_choices(space.staleness_choices()));
  archive.write("weights_digest", torch::tensor(weights_digest(network.net_->parameters())));
  torch::serialize::OutputArchive weights;
  network.net_->save(weights);
  archive.write("network", weights);

  std::filesystem::path temporary = file;
  temporary += ".partial";
  try {
    archive.save_to(temporary.string());
  } catch (const c10::Error& error) {
    throw std::runtime_error(fmt::format("cannot write agent file {}: {}", file.string(),
                                         error.what_without_backtrace()));
  }
  std::error_code failed;
  std::filesystem::rename(temporary, file, failed);
  if (failed) {
    throw std::runtime_error(
        fmt::format("cannot write agent file {}: {}", file.string(), failed.message()));
  }
}

AgentFile load_agent_file(const std::filesystem::path& file) {
  // The file's contents. Throws std::invalid_argument saying what is wrong (without the file's
  // name), or c10::Error for what libtorch cannot read.
  const auto read = [&] {
    torch::serialize::InputArchive archive;
    torch::Tensor format, version, shape_values, max_communities, choices;
    archive.load_from(file.string());
    archive.read("format", format);
    archive.read("version", version);
    archive.read("shape", shape_values);
    archive.read("max_communities", max_communities);
    archive.read("staleness_choices", choices);
    if (!format.equal(text_tensor(kAgentFormat))) {
      throw std::invalid_argument(fmt::format("format is not {}", kAgentFormat));
    }
    const int64_t file_version = version.item<int64_t>();
    if (file_version < kOldestFileVersion || file_version > kFileVersion) {
      throw std::invalid_argument(fmt::format("version {}; this hetps reads versions {} to {}",
                                              file_version, kOldestFileVersion, kFileVersion));
    }
    if (shape_values.numel() != 3) {
      throw std::invalid_argument(fmt::format(
          "its network's shape has {} values; expected 3 (state size, actions, hidden units)",
          shape_values.numel()));
    }
    protocol::ConfigurationSpace space(static_cast<int>(max_communities.item<int64_t>()),
                                       loaded_choices(choices));
    const ActorCriticShape shape{static_cast<int>(shape_values[0].item<int64_t>()),
                                 static_cast<int>(shape_values[1].item<int64_t>()),
                                 static_cast<int>(shape_values[2].item<int64_t>())};
    if (static_cast<size_t>(shape.actions) != space.size() ||
        static_cast<size_t>(shape.state_size) != protocol::state_size(space)) {
      throw std::invalid_argument(fmt::format(
          "its network takes {} values and answers {} actions; its actions need {} and {}",
          shape.state_size, shape.actions, protocol::state_size(space), space.size()));
    }
    ActorCritic network(shape, 0);
    torch::serialize::InputArchive weights;
    archive.read("network", weights);
    network.net_->load(weights);
    if (file_version >= kFirstVersionWithDigest) {
      torch::Tensor digest;
      archive.read("weights_digest", digest);
      if (digest.item<int64_t>() != weights_digest(network.net_->parameters())) {
        throw std::invalid_argument(
            "its network's weights are not those hetps wrote (their digest differs): the file "
            "was damaged or changed; train the agent again (hetps tune petrel)");
      }
    }
    return AgentFile{std::move(network), std::move(space)};
  };
  const auto refuse = [&](const std::string& why) {
    return std::invalid_argument(fmt::format("agent file {}: {}", file.string(), why));
  };
  if (const std::string kind = data::irregular_file_kind(file); !kind.empty()) {
    throw refuse(kind + "; expected an agent file");
  }
  if (!std::filesystem::exists(file)) throw refuse("no such file");
  try {
    return read();
  } catch (const c10::Error& error) {
    throw refuse(fmt::format("not an agent file ({})", error.what_without_backtrace()));
  } catch (const std::invalid_argument& error) {
    throw refuse(error.what());
  }
}

}  // namespace hetps::model
