// Petrel's learned agent's network: the A3C update learns, the file keeps the network exactly,
// bad files are named.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>

#include "data/random.h"
#include "model/actor_critic.h"
#include "model/learned_agent.h"

namespace hetps::model {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A file path of this test's own, removed afterwards.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& name)
      : path_(fs::temp_directory_path() /
              (name + "-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
               "-" + std::to_string(reinterpret_cast<uintptr_t>(this)))) {}
  ~ScratchFile() { fs::remove(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

TEST(ActorCriticTest, TheFirstPolicyIsNearlyUniformAndTheSeedDecidesTheWeights) {
  const ActorCritic a({3, 4, 8}, 5);
  const ActorCritic b({3, 4, 8}, 5);
  const ActorCritic c({3, 4, 8}, 6);
  const std::vector<float> state = {0.5F, -1.0F, 2.0F};
  const PolicyOutput out = a.evaluate(state);
  ASSERT_EQ(out.probabilities.size(), 4u);
  for (const double p : out.probabilities) EXPECT_NEAR(p, 0.25, 0.01);
  EXPECT_EQ(out.probabilities, b.evaluate(state).probabilities);
  EXPECT_EQ(out.value, b.evaluate(state).value);
  EXPECT_NE(out.value, c.evaluate(state).value);
  EXPECT_THROW(a.evaluate(std::vector<float>{1.0F}), std::invalid_argument);
  EXPECT_THROW(ActorCritic({0, 4, 8}, 1), std::invalid_argument);
}

TEST(ActorCriticTest, A3CMovesThePolicyTowardTheRewardedAction) {
  A3CLearner learner({1, 2, 16}, 1, {.learning_rate = 1e-2, .discount = 0.9});
  ActorCritic local = learner.copy();
  const std::vector<float> state = {1.0F};
  std::mt19937_64 rng(3);
  EXPECT_NEAR(local.evaluate(state).probabilities[0], 0.5, 0.01);
  for (int step = 0; step < 300; ++step) {
    const int action = draw_action(local.evaluate(state).probabilities, data::uniform01(rng));
    const Transition only{state, action, action == 0 ? 1.0 : 0.0};
    learner.learn(local, std::span(&only, 1));
  }
  EXPECT_GT(local.evaluate(state).probabilities[0], 0.9);
  EXPECT_EQ(learner.copy().evaluate(state).probabilities, local.evaluate(state).probabilities)
      << "the runner's copy holds the shared weights after its update";
}

TEST(ActorCriticTest, RewardsAreClippedBeforeTheReturns) {
  const std::vector<float> state = {1.0F};
  // Two updates: Adam's first step has the same size whatever the gradient's, its second not.
  const auto after_two_updates = [&](double first_reward) {
    A3CLearner learner({1, 2, 4}, 1, {.reward_clip = 2});
    ActorCritic local = learner.copy();
    const Transition first{state, 0, first_reward};
    const Transition second{state, 0, 1.0};
    learner.learn(local, std::span(&first, 1));
    learner.learn(local, std::span(&second, 1));
    return local.evaluate(state);
  };
  EXPECT_EQ(after_two_updates(100).probabilities, after_two_updates(2).probabilities);
  EXPECT_EQ(after_two_updates(100).value, after_two_updates(2).value);
  EXPECT_NE(after_two_updates(1.5).value, after_two_updates(2).value);
}

TEST(ActorCriticTest, ABadEpisodeIsRefused) {
  A3CLearner learner({1, 2, 4}, 1, {});
  ActorCritic local = learner.copy();
  EXPECT_THROW(learner.learn(local, {}), std::invalid_argument);
  const Transition wrong_action{{1.0F}, 2, 1.0};
  EXPECT_THROW(learner.learn(local, std::span(&wrong_action, 1)), std::invalid_argument);
  const Transition wrong_state{{1.0F, 2.0F}, 0, 1.0};
  EXPECT_THROW(learner.learn(local, std::span(&wrong_state, 1)), std::invalid_argument);
}

TEST(ActorCriticTest, DrawnActionsFollowTheProbabilitiesLaidEndToEnd) {
  const std::vector<double> probabilities = {0.25, 0.5, 0.25};
  EXPECT_EQ(draw_action(probabilities, 0.0), 0);
  EXPECT_EQ(draw_action(probabilities, 0.24), 0);
  EXPECT_EQ(draw_action(probabilities, 0.25), 1);
  EXPECT_EQ(draw_action(probabilities, 0.74), 1);
  EXPECT_EQ(draw_action(probabilities, 0.75), 2);
  EXPECT_EQ(draw_action({0.5, 0.4999}, 0.99995), 1) << "rounding short of 1: the last action";
}

TEST(AgentFileTest, SaveThenLoadGivesIdenticalOutputsAndActions) {
  const protocol::ConfigurationSpace space(3, {protocol::kUnbounded, 0, 4});
  const ActorCriticShape shape{static_cast<int>(protocol::state_size(space)),
                               static_cast<int>(space.size()), 16};
  A3CLearner learner(shape, 9, {});
  ActorCritic local = learner.copy();
  const std::vector<float> state(protocol::state_size(space), 0.5F);
  const Transition step{state, 4, 1.0};
  learner.learn(local, std::span(&step, 1));  // weights no longer the seed's

  const ScratchFile file("agent.pt");
  save_agent_file(file.path(), local, space);
  EXPECT_FALSE(fs::exists(file.path().string() + ".partial"));
  const AgentFile loaded = load_agent_file(file.path());
  EXPECT_EQ(loaded.network.shape(), shape);
  EXPECT_EQ(loaded.space.max_communities(), 3);
  EXPECT_EQ(loaded.space.staleness_choices(), (std::vector<int64_t>{protocol::kUnbounded, 0, 4}));
  for (const float x : {-1.0F, 0.0F, 0.5F, 3.0F}) {
    const std::vector<float> probe(protocol::state_size(space), x);
    const PolicyOutput saved = local.evaluate(probe);
    const PolicyOutput read = loaded.network.evaluate(probe);
    EXPECT_EQ(saved.probabilities, read.probabilities);
    EXPECT_EQ(saved.value, read.value);
  }
}

TEST(AgentFileTest, TheLearnedAgentTakesTheMostProbableAction) {
  const protocol::ConfigurationSpace space(2, {protocol::kUnbounded, 0});
  A3CLearner learner({static_cast<int>(protocol::state_size(space)), 4, 16}, 2,
                     {.learning_rate = 1e-2});
  ActorCritic local = learner.copy();
  protocol::AgentObservation observation;
  observation.features = {{1.0, 1.0}, {0.25, 1.0}};
  const std::vector<float> state = protocol::state_vector(observation, space);
  // Action 3 (K = 2, lock-step) is the one rewarded.
  for (int step = 0; step < 100; ++step) {
    const Transition rewarded{state, 3, 1.0};
    const Transition unrewarded{state, step % 3, -1.0};
    learner.learn(local, std::span(&rewarded, 1));
    learner.learn(local, std::span(&unrewarded, 1));
  }
  const ScratchFile file("learned.pt");
  save_agent_file(file.path(), local, space);
  LearnedAgent agent(load_agent_file(file.path()));
  EXPECT_EQ(agent.choose(observation), (protocol::CommunityConfiguration{2, 0}));
}

// A small agent (8 hidden units) of seed 1, untrained, for `space`.
void save_untrained_agent(const fs::path& file, const protocol::ConfigurationSpace& space) {
  const ActorCriticShape shape{static_cast<int>(protocol::state_size(space)),
                               static_cast<int>(space.size()), 8};
  save_agent_file(file, A3CLearner(shape, 1, {}).copy(), space);
}

TEST(AgentFileTest, BadFilesAreNamed) {
  const ScratchFile missing("missing.pt");
  try {
    load_agent_file(missing.path());
    FAIL() << "a missing file loaded";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(),
                HasSubstr("agent file " + missing.path().string() + ": no such file"));
  }
  const std::filesystem::path directory = ::testing::TempDir();
  try {
    load_agent_file(directory);
    FAIL() << "a directory loaded";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr(": a directory; expected an agent file"));
  }
  const ScratchFile garbage("garbage.pt");
  std::ofstream(garbage.path()) << "not a network";
  try {
    load_agent_file(garbage.path());
    FAIL() << "a text file loaded";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(),
                HasSubstr("agent file " + garbage.path().string() + ": not an agent file"));
  }
  // A real agent file cut short, wherever the cut falls.
  const protocol::ConfigurationSpace space(2, {protocol::kUnbounded, 0});
  const ScratchFile whole("whole.pt");
  save_untrained_agent(whole.path(), space);
  const auto size = fs::file_size(whole.path());
  for (const auto kept : {size / 4, size / 2, size - 16}) {
    const ScratchFile cut("cut.pt");
    fs::copy_file(whole.path(), cut.path());
    fs::resize_file(cut.path(), kept);
    EXPECT_THROW(
        try { load_agent_file(cut.path()); } catch (const std::invalid_argument& error) {
          EXPECT_THAT(error.what(), HasSubstr("agent file " + cut.path().string() + ": "));
          throw;
        },
        std::invalid_argument)
        << "cut to " << kept << " of " << size << " bytes";
  }
}

// The stored bytes of the largest tensor in an agent file (a zip of uncompressed records), found
// through the zip's central directory: its local headers need not hold the sizes.
std::pair<size_t, size_t> largest_tensor_bytes(const std::string& zip) {
  const auto little_endian = [&](size_t at, int bytes) {
    size_t value = 0;
    for (int b = bytes - 1; b >= 0; --b) {
      value = value << 8 | static_cast<unsigned char>(zip[at + static_cast<size_t>(b)]);
    }
    return value;
  };
  std::pair<size_t, size_t> largest{0, 0};  // where its data starts, its size
  for (size_t entry = zip.find("PK\x01\x02"); entry != std::string::npos;
       entry = zip.find("PK\x01\x02", entry + 4)) {
    const size_t size = little_endian(entry + 20, 4);
    const std::string name = zip.substr(entry + 46, little_endian(entry + 28, 2));
    const size_t local = little_endian(entry + 42, 4);
    const size_t data = local + 30 + little_endian(local + 26, 2) + little_endian(local + 28, 2);
    if (name.find("/data/") != std::string::npos && size > largest.second) largest = {data, size};
  }
  return largest;
}

// An agent file written before the weights' digest (version 1, from the hetps of cb6c902) is
// still read. A weight changed since hetps wrote it is refused: libtorch alone would load it.
TEST(AgentFileTest, AVersionOneFileIsReadAndAChangedWeightIsRefused) {
  const AgentFile old =
      load_agent_file(fs::path(HETPS_SOURCE_DIR) / "tests/model/fixtures/agent-v1.pt");
  EXPECT_EQ(old.space.max_communities(), 2);

  const protocol::ConfigurationSpace space(2, {protocol::kUnbounded, 0});
  const ScratchFile file("agent.pt");
  save_untrained_agent(file.path(), space);
  std::string bytes;
  {
    std::ifstream in(file.path(), std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const auto [data, size] = largest_tensor_bytes(bytes);
  ASSERT_GT(size, 16u) << "no tensor record found";
  bytes[data + size / 2 / 4 * 4] ^= 1;  // the lowest mantissa bit of one float: still finite
  std::ofstream(file.path(), std::ios::binary | std::ios::trunc) << bytes;
  try {
    load_agent_file(file.path());
    FAIL() << "a changed weight loaded";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("agent file " + file.path().string() +
                                        ": its network's weights are not those hetps wrote"));
  }
}

}  // namespace
}  // namespace hetps::model
