#include <gtest/gtest.h>

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

TEST(ParameterServerTest, RejectsAModelOfTheWrongSize) {
  EXPECT_THROW(ParameterServer(layout_of(3), std::vector<float>(2), ServerOptions{}),
               std::invalid_argument);
}

}  // namespace
}  // namespace hetps::server
