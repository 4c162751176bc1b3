#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "server/parameter_server.h"

namespace hetps::server {
namespace {

params::ParamLayout layout_of(int64_t size) {
  params::ParamLayout layout;
  layout.add("w", {size});
  return layout;
}

TEST(ParameterServerTest, EveryShardAppliesEveryUpdateAsOneVersion) {
  ServerOptions options;
  options.shards = 3;
  options.momentum = 0;
  options.schedule.base_lr = 0.5;
  ParameterServer server(layout_of(7), std::vector<float>(7, 1.0f), options);
  ASSERT_EQ(server.shard_ranges().size(), 3u);
  std::vector<float> a(7, 1.0f), b(7, 3.0f);
  const float* grads[] = {a.data(), b.data()};
  server.apply({protocol::UpdateKind::Gradient, {0, 1}, {0.5, 0.5}}, grads, 0);
  EXPECT_EQ(server.version(), 1);
  for (float w : server.model()) EXPECT_FLOAT_EQ(w, 0.0f);  // 1 − 0.5·2

  std::vector<float> delta(7, 0.25f);
  const float* deltas[] = {delta.data()};
  server.apply({protocol::UpdateKind::Delta, {2}, {2.0}}, deltas, 0);
  EXPECT_EQ(server.version(), 2);
  for (float w : server.model()) EXPECT_FLOAT_EQ(w, 0.5f);
}

TEST(ParameterServerTest, LearningRateFollowsTheScheduleAndTheOverride) {
  ServerOptions options;
  options.momentum = 0;
  options.schedule = {0.1, "step", 0, 100, 0.5};
  ParameterServer server(layout_of(1), {0.0f}, options);
  EXPECT_DOUBLE_EQ(server.current_lr(150), 0.05);
  server.set_override({0.25, -1});
  EXPECT_DOUBLE_EQ(server.current_lr(150), 0.0125);
  std::vector<float> g = {1.0f};
  const float* grads[] = {g.data()};
  server.apply({protocol::UpdateKind::Gradient, {0}, {1.0}}, grads, 150);
  EXPECT_FLOAT_EQ(server.model()[0], -0.0125f);
}

TEST(ParameterServerTest, MomentumOverrideReplacesTheConfiguredMomentum) {
  ServerOptions options;
  options.momentum = 0.9;
  options.schedule.base_lr = 1.0;
  ParameterServer server(layout_of(1), {0.0f}, options);
  server.set_override({1.0, 0.0});
  std::vector<float> g = {1.0f};
  const float* grads[] = {g.data()};
  server.apply({protocol::UpdateKind::Gradient, {0}, {1.0}}, grads, 0);
  server.apply({protocol::UpdateKind::Gradient, {0}, {1.0}}, grads, 0);
  EXPECT_FLOAT_EQ(server.model()[0], -2.0f);  // no momentum: two plain steps
}

std::vector<float> random_values(size_t count, float scale, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> values(count);
  for (auto& value : values) value = normal(rng);
  return values;
}

// The model after four orders (three gradients of unequal weights, one of weight 1, a delta,
// three gradients again) on a server with the given shards and apply threads, applying one
// shard only when `only_shard` is one.
std::vector<float> model_after_orders(size_t size, int shards, int apply_threads, bool nesterov,
                                      int only_shard = -1) {
  std::mt19937 rng(11);
  ServerOptions options;
  options.shards = shards;
  options.apply_threads = apply_threads;
  options.only_shard = only_shard;
  options.momentum = 0.9;
  options.sgd = {nesterov, 1e-4};
  options.schedule.base_lr = 0.05;
  ParameterServer server(layout_of(static_cast<int64_t>(size)), random_values(size, 1.0f, rng),
                         options);
  std::vector<std::vector<float>> updates;
  for (int k = 0; k < 3; ++k) updates.push_back(random_values(size, 0.01f, rng));
  const float* payloads[] = {updates[0].data(), updates[1].data(), updates[2].data()};
  const protocol::ApplyOrder three{protocol::UpdateKind::Gradient, {0, 1, 2}, {0.5, 0.3, 0.2}};
  server.apply(three, payloads, 0);
  server.apply({protocol::UpdateKind::Gradient, {0}, {1.0}}, std::span(payloads, 1), 0);
  server.apply({protocol::UpdateKind::Delta, {1}, {0.25}}, std::span(payloads + 1, 1), 0);
  server.apply(three, payloads, 0);
  const auto model = server.model();
  return {model.begin(), model.end()};
}

TEST(ParameterServerTest, ApplyThreadsDoNotChangeTheBits) {
  // Sizes that leave remainders: beside the shards', the threads' shares and the
  // 8192-key blocks in which several gradients are summed.
  for (size_t size : {1u, 7u, 2049u, 10007u}) {
    for (int shards : {1, 3}) {
      for (bool nesterov : {false, true}) {
        const auto serial = model_after_orders(size, shards, 1, nesterov);
        for (int threads : {2, 3}) {
          const auto parallel = model_after_orders(size, shards, threads, nesterov);
          EXPECT_EQ(std::memcmp(parallel.data(), serial.data(), size * sizeof(float)), 0)
              << "size " << size << ", shards " << shards << ", threads " << threads
              << ", nesterov " << nesterov;
        }
      }
    }
  }
}

// The mpi engine's shard ranks: each applies its own keys, with the bits one process gives them.
TEST(ParameterServerTest, AServerOfOneShardGivesItsKeysTheBitsOfAllShards) {
  const size_t size = 10007;
  const auto all = model_after_orders(size, 3, 1, true);
  std::mt19937 rng(11);
  const auto initial = random_values(size, 1.0f, rng);
  const auto ranges = layout_of(size).shard_ranges(3);
  for (int shard = 0; shard < 3; ++shard) {
    const auto one = model_after_orders(size, 3, 2, true, shard);
    for (size_t key = 0; key < size; ++key) {
      const bool own = key >= ranges[shard].begin && key < ranges[shard].end;
      ASSERT_EQ(one[key], own ? all[key] : initial[key]) << "shard " << shard << ", key " << key;
    }
  }
}

TEST(ParameterServerTest, LoadKeysOverwritesThemAlone) {
  ServerOptions options;
  options.shards = 2;
  options.only_shard = 0;
  ParameterServer server(layout_of(4), {1, 2, 3, 4}, options);
  const std::vector<float> values = {7, 8};
  server.load_keys({2, 4}, values);
  EXPECT_EQ(std::vector<float>(server.model().begin(), server.model().end()),
            (std::vector<float>{1, 2, 7, 8}));
  EXPECT_THROW(server.load_keys({3, 5}, values), std::invalid_argument);
  EXPECT_THROW(server.load_keys({0, 1}, values), std::invalid_argument);
}

TEST(ParameterServerTest, RejectsAShardItDoesNotHave) {
  ServerOptions options;
  options.shards = 2;
  options.only_shard = 2;
  EXPECT_THROW(ParameterServer(layout_of(3), std::vector<float>(3), options),
               std::invalid_argument);
}

TEST(ParameterServerTest, RejectsFewerThanOneApplyThread) {
  ServerOptions options;
  options.apply_threads = 0;
  EXPECT_THROW(ParameterServer(layout_of(3), std::vector<float>(3), options),
               std::invalid_argument);
}

TEST(ParameterServerTest, RejectsAnOrderWithoutPayloads) {
  ServerOptions options;
  options.apply_threads = 2;
  ParameterServer server(layout_of(3), std::vector<float>(3), options);
  EXPECT_THROW(server.apply({protocol::UpdateKind::Gradient, {}, {}}, {}, 0),
               std::invalid_argument);
  EXPECT_EQ(server.version(), 0);
}

TEST(ParameterServerTest, RejectsAModelOfTheWrongSize) {
  EXPECT_THROW(ParameterServer(layout_of(3), std::vector<float>(2), ServerOptions{}),
               std::invalid_argument);
}

}  // namespace
}  // namespace hetps::server
