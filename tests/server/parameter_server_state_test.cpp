#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "checkpoint/checkpoint_error.h"
#include "server/parameter_server.h"
#include "support/through_cbor.h"

namespace hetps::server {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

constexpr int64_t kKeys = 21;

params::ParamLayout two_tensors(int64_t keys) {
  params::ParamLayout layout;
  layout.add("weight", {keys - 3});
  layout.add("bias", {3});
  return layout;
}

// Three shards, Nesterov momentum with weight decay, a cosine schedule: every piece of the
// optimizer's state matters.
ServerOptions sharded_nesterov(int apply_threads, int only_shard = -1) {
  ServerOptions options;
  options.shards = 3;
  options.apply_threads = apply_threads;
  options.only_shard = only_shard;
  options.sgd = {true, 1e-3};
  options.momentum = 0.9;
  options.schedule = {0.1, "cosine", 40, 0, 0.1, 1000};
  return options;
}

std::vector<float> initial_keys(int64_t keys) {
  std::vector<float> model(static_cast<size_t>(keys));
  for (size_t i = 0; i < model.size(); ++i) model[i] = 1.0f / (2.0f + static_cast<float>(i));
  return model;
}

// Orders `from` to `to`: two-gradient rounds, single gradients, a delta merge, and an override
// change halfway.
void apply_orders(ParameterServer& server, int from, int to) {
  std::vector<float> a(kKeys);
  std::vector<float> b(kKeys);
  for (int order = from; order < to; ++order) {
    for (size_t i = 0; i < a.size(); ++i) {
      a[i] = std::sin(static_cast<float>(order * 31 + i));
      b[i] = std::cos(static_cast<float>(order * 17 + i)) / 3;
    }
    const float* both[] = {a.data(), b.data()};
    const float* one[] = {b.data()};
    const int64_t samples = 32 * order;
    if (order == 7) server.set_override({0.25, 0.3});
    if (order % 3 == 0) {
      server.apply({protocol::UpdateKind::Gradient, {0, 1}, {0.6, 0.4}}, both, samples);
    } else if (order % 3 == 1) {
      server.apply({protocol::UpdateKind::Gradient, {2}, {1.0}}, one, samples);
    } else {
      server.apply({protocol::UpdateKind::Delta, {3}, {0.5}}, one, samples);
    }
  }
}

TEST(ParameterServerStateTest, ARestoredServerAppliesTheSameBitsWithAnyApplyThreads) {
  ParameterServer original(two_tensors(kKeys), initial_keys(kKeys), sharded_nesterov(2));
  apply_orders(original, 0, 10);
  const nlohmann::json saved = testing::through_cbor(original.save_state());
  apply_orders(original, 10, 25);
  for (int threads : {2, 3}) {
    ParameterServer restored(two_tensors(kKeys), std::vector<float>(kKeys, 0.0f),
                             sharded_nesterov(threads));
    restored.restore_state(saved);
    EXPECT_EQ(restored.version(), 10);
    EXPECT_DOUBLE_EQ(restored.current_lr(320), original.current_lr(320));
    apply_orders(restored, 10, 25);
    EXPECT_EQ(restored.version(), original.version());
    EXPECT_TRUE(std::ranges::equal(restored.model(), original.model()))
        << "apply_threads = " << threads;
    EXPECT_EQ(restored.save_state(), original.save_state());
  }
}

TEST(ParameterServerStateTest, AServerHoldingOneShardRestoresThatShard) {
  ParameterServer original(two_tensors(kKeys), initial_keys(kKeys), sharded_nesterov(1, 1));
  apply_orders(original, 0, 10);
  ParameterServer restored(two_tensors(kKeys), initial_keys(kKeys), sharded_nesterov(2, 1));
  restored.restore_state(testing::through_cbor(original.save_state()));
  apply_orders(original, 10, 20);
  apply_orders(restored, 10, 20);
  EXPECT_TRUE(std::ranges::equal(restored.model(), original.model()));
  EXPECT_EQ(restored.save_state(), original.save_state());
}

TEST(ParameterServerStateTest, RefusesAnotherModelSizeOrAnotherShardsMomentum) {
  ParameterServer original(two_tensors(kKeys), initial_keys(kKeys), sharded_nesterov(1));
  apply_orders(original, 0, 4);
  ParameterServer larger(two_tensors(kKeys + 1), initial_keys(kKeys + 1), sharded_nesterov(1));
  EXPECT_THAT([&] { larger.restore_state(original.save_state()); },
              ThrowsMessage<checkpoint::CheckpointError>(
                  HasSubstr("the parameter server: model: holds 21 floats, expected 22")));
  ParameterServer one_shard(two_tensors(kKeys), initial_keys(kKeys), sharded_nesterov(1, 0));
  EXPECT_THAT([&] { one_shard.restore_state(original.save_state()); },
              ThrowsMessage<checkpoint::CheckpointError>(
                  HasSubstr("the parameter server: momentum: holds 21 floats, expected 7 (the "
                            "keys this server applies)")));
  EXPECT_TRUE(std::ranges::equal(one_shard.model(), initial_keys(kKeys)))
      << "a refused state changes nothing";
  EXPECT_EQ(one_shard.version(), 0);
}

TEST(SgdOptimizerStateTest, ARestoredOptimizerStepsAsTheSavedOne) {
  std::vector<float> original_model = initial_keys(9);
  std::vector<float> restored_model = original_model;
  SgdOptimizer original({2, 9}, original_model, {false, 0.01});
  std::vector<float> gradient(9);
  const float* gradients[] = {gradient.data()};
  const double weight[] = {1.0};
  const auto step = [&](SgdOptimizer& optimizer, int s) {
    for (size_t i = 0; i < gradient.size(); ++i)
      gradient[i] = std::sin(static_cast<float>(s * 9 + i));
    optimizer.apply_gradients(gradients, weight, 0.05, 0.9);
  };
  for (int s = 0; s < 5; ++s) step(original, s);
  restored_model = original_model;
  SgdOptimizer restored({2, 9}, restored_model, {false, 0.01});
  restored.restore_state(testing::through_cbor(original.save_state()));
  for (int s = 5; s < 10; ++s) {
    step(original, s);
    step(restored, s);
  }
  EXPECT_EQ(restored_model, original_model);

  SgdOptimizer wider({0, 9}, restored_model, {false, 0.01});
  EXPECT_THAT([&] { wider.restore_state(original.save_state()); },
              ThrowsMessage<checkpoint::CheckpointError>(HasSubstr(
                  "SGD optimizer over keys [0, 9): momentum: holds 7 floats, expected 9")));
}

}  // namespace
}  // namespace hetps::server
