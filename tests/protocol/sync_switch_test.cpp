#include "protocol/sync_switch.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <queue>
#include <set>

#include "protocol/registry.h"
#include "support/protocol_driving.h"
#include "support/recording_actions.h"

namespace hetps::protocol {
namespace {

using testing::make_protocol;
using testing::RecordingActions;

// A tiny engine: each answered worker computes one step of `step_seconds(worker, time)` and
// pushes; its next pull follows at once, as on every engine.
class Driver {
 public:
  using StepSeconds = std::function<double(int worker, double now)>;

  Driver(Protocol& protocol, RunShape shape, StepSeconds step_seconds)
      : protocol_(protocol), step_seconds_(std::move(step_seconds)) {
    protocol_.start(shape, actions);
    for (int w = 0; w < shape.workers; ++w) protocol_.on_pull_request(w, actions);
    schedule_answered();
  }

  void run_updates(int64_t updates) {
    for (int64_t u = 0; u < updates; ++u) {
      const Push push = pushes_.top();
      pushes_.pop();
      if (dead_.contains(push.worker)) {
        --u;
        continue;
      }
      now_ = push.time;
      UpdateInfo info;
      info.id = next_id_++;
      info.worker = push.worker;
      info.compute_seconds = push.seconds;
      info.comm_seconds = 0.02;
      info.now = now_;
      protocol_.on_update(info, actions);
      protocol_.on_pull_request(push.worker, actions);
      schedule_answered();
    }
  }

  // Applies of more than one update: BSP rounds.
  int64_t rounds() const {
    return std::ranges::count_if(
        actions.applied, [](const ApplyOrder& order) { return order.update_ids.size() > 1; });
  }
  std::vector<std::string> phases() const {
    std::vector<std::string> phases;
    for (const auto& event : actions.events) {
      if (event.type == "phase") {
        phases.push_back(event.details.at("to").get<std::string>() + ":" +
                         event.details.at("reason").get<std::string>());
      }
    }
    return phases;
  }
  double now() const { return now_; }
  void kill(int worker) {
    dead_.insert(worker);
    protocol_.on_worker_failed(worker, actions);
    schedule_answered();
  }

  RecordingActions actions;

 private:
  struct Push {
    double time;
    int worker;
    double seconds;
    bool operator>(const Push& other) const {
      return time != other.time ? time > other.time : worker > other.worker;
    }
  };
  void schedule_answered() {
    for (int worker : actions.take_replied_workers()) {
      const double seconds = step_seconds_(worker, now_);
      pushes_.push({now_ + seconds, worker, seconds});
    }
  }

  Protocol& protocol_;
  StepSeconds step_seconds_;
  std::priority_queue<Push, std::vector<Push>, std::greater<>> pushes_;
  double now_ = 0;
  int next_id_ = 0;
  std::set<int> dead_;
};

Driver::StepSeconds uniform(double seconds) {
  return [seconds](int, double) { return seconds; };
}

// spec: x·S BSP steps, then (1−x)·S·n ASP steps: the same samples either way.
TEST(SyncSwitchTest, RunsXTimesSBspRoundsThenAsp) {
  auto protocol = make_protocol("sync_switch", {{"bsp_fraction", 0.25}});
  const RunShape shape{4, 4 * 8 * 100, 8, 0.9};  // S = 100 BSP steps
  Driver driver(*protocol, shape, uniform(1.0));
  driver.run_updates(4 * 25);
  EXPECT_EQ(driver.rounds(), 25);
  EXPECT_EQ(driver.phases(), (std::vector<std::string>{"asp:budget"}));
  driver.run_updates(300);
  EXPECT_EQ(driver.rounds(), 25) << "no round after the switch";
  EXPECT_EQ(driver.actions.applied.size(), 25u + 300u);
}

// x = 1 is the search's BSP baseline: no round of it may go to ASP when S is not whole.
TEST(SyncSwitchTest, AWholeFractionIsBspToTheEndOfAnyBudget) {
  auto protocol = make_protocol("sync_switch", {{"bsp_fraction", 1.0}});
  const RunShape shape{4, 4 * 8 * 100 + 16, 8, 0.9};  // S = 100.5 BSP steps
  Driver driver(*protocol, shape, uniform(1.0));
  driver.run_updates(4 * 102);
  EXPECT_EQ(driver.rounds(), 102);
  EXPECT_TRUE(driver.phases().empty());
}

TEST(SyncSwitchTest, AZeroFractionIsAspFromTheStart) {
  auto protocol = make_protocol("sync_switch", {{"bsp_fraction", 0.0}});
  Driver driver(*protocol, {3, 3 * 100, 1, 0.9}, uniform(1.0));
  driver.run_updates(30);
  EXPECT_EQ(driver.rounds(), 0);
  EXPECT_EQ(driver.actions.applied.size(), 30u);
  EXPECT_EQ(driver.actions.switches_charged, 0) << "starting in ASP switches nothing";
  EXPECT_EQ(driver.actions.events.at(0).details.at("overhead_s"), 0.0);
}

// spec, "Configuration policy at the switch": lr ÷ n, momentum m/n for ramp_steps ASP updates,
// then m.
TEST(SyncSwitchTest, TheOptimizerFollowsTheRampAfterTheSwitch) {
  auto protocol = make_protocol("sync_switch", {{"bsp_fraction", 0.1}, {"ramp_steps", 6.0}});
  Driver driver(*protocol, {4, 4 * 100, 1, 0.8}, uniform(1.0));  // S = 100: 10 rounds
  driver.run_updates(4 * 10);
  ASSERT_EQ(driver.actions.optimizer_changes.size(), 1u);
  EXPECT_DOUBLE_EQ(driver.actions.optimizer_changes[0].lr_scale, 0.25);
  EXPECT_DOUBLE_EQ(driver.actions.optimizer_changes[0].momentum, 0.2);
  driver.run_updates(5);
  EXPECT_EQ(driver.actions.optimizer_changes.size(), 1u) << "still in the first stage";
  driver.run_updates(1);
  ASSERT_EQ(driver.actions.optimizer_changes.size(), 2u);
  EXPECT_DOUBLE_EQ(driver.actions.optimizer_changes[1].lr_scale, 0.25);
  EXPECT_DOUBLE_EQ(driver.actions.optimizer_changes[1].momentum, 0.8);
  const auto& phase = driver.actions.events.front();
  EXPECT_EQ(phase.type, "phase");
  EXPECT_DOUBLE_EQ(phase.details.at("lr_scale").get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(phase.details.at("momentum").get<double>(), 0.2);
}

// Worker 2 slows down threefold from t = 30 to t = 60.
double scripted_episode(int worker, double now) {
  return worker == 2 && now >= 30 && now < 60 ? 3.0 : 1.0;
}

TEST(SyncSwitchTest, GreedyLeavesBspAtADetectionAndComesBackWhenItIsGone) {
  auto protocol =
      make_protocol("sync_switch", {{"bsp_fraction", 0.5}, {"online", std::string("greedy")}});
  Driver driver(*protocol, {3, 3 * 200, 1, 0.9}, scripted_episode);  // 100 BSP rounds
  driver.actions.switch_charge = 0.25;
  driver.run_updates(3 * 200);
  EXPECT_EQ(driver.phases(),
            (std::vector<std::string>{"asp:straggler", "bsp:straggler_gone", "asp:budget"}));
  // Each switch, either way, is charged to the engine once, and its record says what it cost.
  EXPECT_EQ(driver.actions.switches_charged, 3);
  for (const auto& phase : driver.actions.events_of_type("phase")) {
    EXPECT_EQ(phase.details.at("overhead_s"), 0.25);
  }
  EXPECT_EQ(driver.rounds(), 100) << "exactly the BSP budget is spent in BSP";
  // Back in BSP, BSP's own optimizer.
  const auto& back = driver.actions.optimizer_changes.at(1);
  EXPECT_DOUBLE_EQ(back.lr_scale, 1.0);
  EXPECT_LT(back.momentum, 0);
  int detected = 0;
  int cleared = 0;
  for (const auto& event : driver.actions.events) {
    if (event.type != "straggler") continue;
    EXPECT_EQ(event.details.at("worker"), 2);
    (event.details.at("state") == "detected" ? detected : cleared)++;
  }
  EXPECT_EQ(detected, 1);
  EXPECT_EQ(cleared, 1);
}

// Elastic (spec): with the straggler the slowest, BSP loses D·(σ−1)/σ = 2D/3 here; it leaves
// BSP only when that exceeds twice the switch overhead (1 s). Before any episode has ended D is
// expected_episode_s; afterwards, the mean episode.
TEST(SyncSwitchTest, ElasticLeavesOnlyWhenTheExpectedLossIsWorthTheSwitch) {
  const auto two_episodes = [](int worker, double now) {
    const bool slowed = (now >= 30 && now < 90) || (now >= 150 && now < 160);
    return worker == 2 && slowed ? 3.0 : 1.0;
  };
  auto protocol = make_protocol("sync_switch", {{"bsp_fraction", 1.0},
                                                {"online", std::string("elastic")},
                                                {"switch_overhead_s", 1.0},
                                                {"expected_episode_s", 2.0}});
  Driver driver(*protocol, {3, 3 * 1000, 1, 0.9}, two_episodes);
  driver.run_updates(3 * 200);
  // First episode: D = 2 s, 4/3 s < 2 s: stays. Second: D = the first's ~60 s: leaves.
  std::vector<bool> left;
  for (const auto& event : driver.actions.events) {
    if (event.type == "straggler" && event.details.at("state") == "detected") {
      left.push_back(event.details.at("expected_loss_s").get<double>() > 2.0);
    }
  }
  EXPECT_EQ(left, (std::vector<bool>{false, true}));
  EXPECT_EQ(driver.phases(), (std::vector<std::string>{"asp:straggler", "bsp:straggler_gone"}));
}

// A straggler that dies is no straggler: greedy returns to BSP and spends its budget there.
TEST(SyncSwitchTest, GreedyReturnsToBspWhenTheStragglerDies) {
  auto protocol =
      make_protocol("sync_switch", {{"bsp_fraction", 0.5}, {"online", std::string("greedy")}});
  const auto slowed_for_good = [](int worker, double now) {
    return worker == 2 && now >= 30 ? 3.0 : 1.0;
  };
  Driver driver(*protocol, {3, 3 * 200, 1, 0.9}, slowed_for_good);
  while (driver.phases().empty()) driver.run_updates(1);
  EXPECT_EQ(driver.phases(), (std::vector<std::string>{"asp:straggler"}));
  driver.kill(2);
  EXPECT_EQ(driver.phases(), (std::vector<std::string>{"asp:straggler", "bsp:straggler_gone"}));
  driver.run_updates(2 * 200);
  EXPECT_EQ(driver.rounds(), 100);
}

TEST(SyncSwitchTest, StateRoundTripsMidRun) {
  auto protocol =
      make_protocol("sync_switch", {{"bsp_fraction", 0.5}, {"online", std::string("greedy")}});
  Driver driver(*protocol, {3, 3 * 200, 1, 0.9}, scripted_episode);
  driver.run_updates(100);
  auto restored =
      make_protocol("sync_switch", {{"bsp_fraction", 0.5}, {"online", std::string("greedy")}});
  restored->restore_state(protocol->save_state());
  EXPECT_EQ(restored->save_state(), protocol->save_state());
}

TEST(SyncSwitchTest, RefusesASavedWorkerCountItsDetectorDoesNotHold) {
  auto protocol = make_protocol("sync_switch", {{"bsp_fraction", 0.5}});
  Driver driver(*protocol, {3, 3 * 200, 1, 0.9}, scripted_episode);
  driver.run_updates(10);
  nlohmann::json huge = protocol->save_state();
  huge["shape"]["workers"] = 1000000000;  // sized the detector before it was checked
  auto restored = make_protocol("sync_switch", {{"bsp_fraction", 0.5}});
  EXPECT_THAT([&] { restored->restore_state(huge); },
              ::testing::ThrowsMessage<std::invalid_argument>(::testing::HasSubstr(
                  "sync_switch: the saved shape holds 1000000000 workers, its straggler "
                  "detector 3; expected the same count, at least 1")));
}

}  // namespace
}  // namespace hetps::protocol
