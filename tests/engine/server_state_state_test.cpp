#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <vector>

#include "checkpoint/checkpoint_error.h"
#include "engine/server_state.h"
#include "protocol/registry.h"
#include "small_run.h"
#include "support/through_cbor.h"

namespace hetps::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// The server side of an engine around a ServerState, with workers that answer every reply at
// once: each pushes a made-up gradient in reply order, every fourth update an evaluation.
class ServerStateDriver : public protocol::Actions {
 public:
  explicit ServerStateDriver(engine::ServerState& state) : state_(state) {}

  // The protocol starts and every worker pulls.
  void start(int workers) {
    state_.protocol().start(protocol::run_shape(config_of_test()), *this);
    for (int w = 0; w < workers; ++w) state_.protocol().on_pull_request(w, *this);
  }
  void push_updates(int updates) {
    for (int u = 0; u < updates && !answered_.empty(); ++u) {
      const int worker = answered_.front();
      answered_.pop_front();
      now_ += 0.01 + 0.001 * worker;
      const int id = state_.pool().acquire();
      protocol::UpdateInfo& info = state_.pool().at(id).info;
      info.id = id;
      info.worker = worker;
      info.base_version = reply_version_[static_cast<size_t>(worker)];
      info.clock = ++pushes_;
      info.samples = 16;
      info.train_loss = 2.0 / static_cast<double>(1 + pushes_);
      info.compute_seconds = 0.01 + 0.001 * worker;
      info.comm_seconds = 0.002;
      info.now = now_;
      std::span<float> gradient = state_.pool().buffer(id);
      for (size_t i = 0; i < gradient.size(); ++i) {
        gradient[i] = std::sin(static_cast<float>(pushes_ * 7 + i)) / 50;
      }
      state_.protocol().on_update(info, *this);
      state_.protocol().on_pull_request(worker, *this);
      if (pushes_ % 4 == 0) state_.evaluate(now_);
    }
  }

  int64_t apply(const protocol::ApplyOrder& order) override { return state_.apply(order); }
  void reply_pull(int worker, const protocol::WorkerPlan&) override {
    reply_version_.resize(std::max(reply_version_.size(), static_cast<size_t>(worker) + 1));
    reply_version_[static_cast<size_t>(worker)] = state_.server().version();
    answered_.push_back(worker);
  }
  void discard(int update_id) override { state_.discard(update_id); }
  void set_optimizer(const protocol::OptimizerOverride& settings) override {
    state_.set_optimizer(settings);
  }
  void record(const protocol::ProtocolEvent& event) override { state_.record(event, now_); }
  int64_t version() const override { return state_.server().version(); }

  // The engine's own side (who awaits a push, the clock), taken over by a resumed engine.
  void take_engine_side_of(const ServerStateDriver& other) {
    answered_ = other.answered_;
    reply_version_ = other.reply_version_;
    now_ = other.now_;
    pushes_ = other.pushes_;
  }

  static const config::Config& config_of_test() {
    static const config::Config config = [] {
      config::Config c = small_config("sync_switch");
      c.protocol.params = {{"bsp_fraction", 0.75}};
      c.train.momentum = 0.9;
      c.train.target_accuracy = 0.3;
      return c;
    }();
    return config;
  }

 private:
  engine::ServerState& state_;
  std::deque<int> answered_;
  std::vector<int64_t> reply_version_;
  double now_ = 0;
  int64_t pushes_ = 0;
};

TEST(ServerStateStateTest, AResumedServerStateWritesTheSameLogAndModel) {
  const config::Config& config = ServerStateDriver::config_of_test();
  SoftmaxLearner learner(784, 10, 1);
  CollectingListener original_log;
  engine::ServerState original(config, small_data(), learner, original_log);
  ServerStateDriver original_driver(original);
  original_driver.start(config.cluster.workers);
  original_driver.push_updates(83);  // mid-round of BSP, before the switch to ASP at 120
  const nlohmann::json saved = through_cbor(original.save_state());
  ASSERT_FALSE(saved.at("pool").at("pending").empty()) << "a round's updates are in flight";

  CollectingListener resumed_log;
  engine::ServerState resumed(config, small_data(), learner, resumed_log);
  resumed.restore_state(saved);
  EXPECT_EQ(resumed.save_state(), original.save_state());
  EXPECT_TRUE(resumed_log.lines.empty()) << "the protocol's start writes nothing on a resume";
  ServerStateDriver resumed_driver(resumed);
  resumed_driver.take_engine_side_of(original_driver);
  const size_t lines_before = original_log.lines.size();
  original_driver.push_updates(400);
  resumed_driver.push_updates(400);

  const std::vector<std::string> continued(original_log.lines.begin() + lines_before,
                                           original_log.lines.end());
  ASSERT_GT(continued.size(), 50u);
  EXPECT_EQ(resumed_log.lines, continued);
  EXPECT_TRUE(std::ranges::equal(resumed.server().model(), original.server().model()));
  EXPECT_EQ(resumed.save_state(), original.save_state());
  const auto start = std::chrono::steady_clock::now();
  nlohmann::json original_summary =
      metrics::to_json(original.finish(9, "max_samples", "sim", start));
  nlohmann::json resumed_summary = metrics::to_json(resumed.finish(9, "max_samples", "sim", start));
  original_summary.erase("wall_seconds");
  resumed_summary.erase("wall_seconds");
  EXPECT_EQ(resumed_summary, original_summary);
}

TEST(ServerStateStateTest, RefusesAnotherWorkerCountAndNamesAProtocolsRefusal) {
  const config::Config& config = ServerStateDriver::config_of_test();
  SoftmaxLearner learner(784, 10, 1);
  CollectingListener log;
  engine::ServerState original(config, small_data(), learner, log);
  ServerStateDriver(original).start(config.cluster.workers);

  config::Config three = config;
  three.cluster.workers = 3;
  engine::ServerState other(three, small_data(), learner, log);
  EXPECT_THAT([&] { other.restore_state(original.save_state()); },
              ThrowsMessage<checkpoint::CheckpointError>(
                  HasSubstr("the server state: holds 4 workers, expected 3")));

  nlohmann::json wrong_phase = original.save_state();
  wrong_phase["protocol"].erase("phase");
  engine::ServerState same(config, small_data(), learner, log);
  EXPECT_THAT([&] { same.restore_state(wrong_phase); },
              ThrowsMessage<checkpoint::CheckpointError>(HasSubstr(
                  "the server state: protocol 'sync_switch': [json.exception.out_of_range.403] "
                  "key 'phase' not found")));
}

}  // namespace
}  // namespace hetps::testing
