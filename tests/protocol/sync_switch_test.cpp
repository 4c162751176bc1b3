#include "protocol/sync_switch.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <numeric>
#include <queue>
#include <set>
#include <string>
#include <vector>

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
  // The straggler and phase records in the order made: "detected 2", "cleared 2", and phases
  // as phases() writes them, so a test sees which detection a switch followed.
  std::vector<std::string> switch_story() const {
    std::vector<std::string> story;
    for (const auto& event : actions.events) {
      if (event.type == "straggler") {
        story.push_back(event.details.at("state").get<std::string>() + " " +
                        std::to_string(event.details.at("worker").get<int>()));
      } else if (event.type == "phase") {
        story.push_back(event.details.at("to").get<std::string>() + ":" +
                        event.details.at("reason").get<std::string>());
      }
    }
    return story;
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
  // It leaves at the detection itself, and returns at the clearing itself.
  EXPECT_EQ(driver.switch_story(),
            (std::vector<std::string>{"detected 2", "asp:straggler", "cleared 2",
                                      "bsp:straggler_gone", "asp:budget"}));
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
}

// Elastic (spec): BSP loses D·(1 − T/T') to a straggler, T' = max(T, σ·t_i); it leaves BSP only
// when that exceeds twice the switch overhead. σ is the straggler's window mean over its profiled
// step: detected after 2 of 5 steps at 3 s, σ = (1 + 1 + 1 + 3 + 3) / 5 = 1.8, so with the
// straggler the slowest BSP loses D·(1 − 1/1.8) = 4D/9.
constexpr double kLossShare = 1 - 1 / 1.8;

// The `expected_loss_s` of each detection, in order.
std::vector<double> expected_losses(const RecordingActions& actions) {
  std::vector<double> losses;
  for (const auto& event : actions.events_of_type("straggler")) {
    if (event.details.at("state") == "detected") {
      losses.push_back(event.details.at("expected_loss_s").get<double>());
    }
  }
  return losses;
}

std::unique_ptr<Protocol> elastic(double expected_episode_s) {
  return make_protocol("sync_switch", {{"bsp_fraction", 1.0},
                                       {"online", std::string("elastic")},
                                       {"switch_overhead_s", 1.0},
                                       {"expected_episode_s", expected_episode_s}});
}

// Before any episode has ended D is expected_episode_s (2 s: 0.89 s lost, under 2 s: it stays);
// afterwards the mean episode (the first's, about 60 s: it leaves).
TEST(SyncSwitchTest, ElasticLeavesOnlyWhenTheExpectedLossIsWorthTheSwitch) {
  const auto two_episodes = [](int worker, double now) {
    const bool slowed = (now >= 30 && now < 90) || (now >= 150 && now < 160);
    return worker == 2 && slowed ? 3.0 : 1.0;
  };
  auto protocol = elastic(2.0);
  Driver driver(*protocol, {3, 3 * 1000, 1, 0.9}, two_episodes);
  driver.run_updates(3 * 200);
  EXPECT_EQ(driver.switch_story(),
            (std::vector<std::string>{"detected 2", "cleared 2", "detected 2", "asp:straggler",
                                      "cleared 2", "bsp:straggler_gone"}));
  const std::vector<double> losses = expected_losses(driver.actions);
  ASSERT_EQ(losses.size(), 2U);
  EXPECT_NEAR(losses[0], 2.0 * kLossShare, 1e-9);
  EXPECT_GT(losses[1], 50 * kLossShare);
  EXPECT_LT(losses[1], 70 * kLossShare);
}

TEST(SyncSwitchTest, ElasticTakesTheExpectedEpisodeBeforeAnyHasEnded) {
  const auto one_episode = [](int worker, double now) {
    return worker == 2 && now >= 30 && now < 40 ? 3.0 : 1.0;
  };
  auto protocol = elastic(100.0);  // 44 s lost: it leaves, although the episode is short
  Driver driver(*protocol, {3, 3 * 1000, 1, 0.9}, one_episode);
  driver.run_updates(3 * 100);
  EXPECT_EQ(driver.switch_story(), (std::vector<std::string>{"detected 2", "asp:straggler",
                                                             "cleared 2", "bsp:straggler_gone"}));
  EXPECT_EQ(expected_losses(driver.actions), (std::vector<double>{100.0 * kLossShare}));
}

// T' = max(T, σ·t_i): a straggler that stays faster than a permanently slower worker costs BSP
// nothing, however long its episode is expected to last.
TEST(SyncSwitchTest, ElasticStaysForAStragglerStillFasterThanTheSlowestWorker) {
  const auto behind_a_slow_worker = [](int worker, double now) {
    if (worker == 0) return 4.0;
    return worker == 2 && now >= 60 && now < 120 ? 3.0 : 1.0;
  };
  auto protocol = elastic(100.0);
  Driver driver(*protocol, {3, 3 * 1000, 1, 0.9}, behind_a_slow_worker);
  driver.run_updates(3 * 50);
  EXPECT_EQ(driver.switch_story(), (std::vector<std::string>{"detected 2", "cleared 2"}));
  EXPECT_EQ(expected_losses(driver.actions), (std::vector<double>{0.0}));
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

// Worker 0 is always slowest, so the straggler (worker 2) is detected with its own update in a
// round still waiting for worker 0's: that round's updates go to ASP, none is dropped.
TEST(SyncSwitchTest, LeavingMidRoundAppliesTheRoundsUpdatesAsAsp) {
  auto protocol =
      make_protocol("sync_switch", {{"bsp_fraction", 0.5}, {"online", std::string("greedy")}});
  const auto behind_worker_0 = [](int worker, double now) {
    if (worker == 0) return 4.0;
    return worker == 2 && now >= 30 ? 3.0 : 1.0;
  };
  Driver driver(*protocol, {3, 3 * 200, 1, 0.9}, behind_worker_0);
  int pushed = 0;
  while (driver.phases().empty()) {
    driver.run_updates(1);
    ++pushed;
  }
  ASSERT_EQ(driver.phases(), (std::vector<std::string>{"asp:straggler"}));
  ASSERT_NE(pushed % 3, 0) << "the switch must come mid-round";
  std::vector<int> applied;
  for (const auto& order : driver.actions.applied) {
    applied.insert(applied.end(), order.update_ids.begin(), order.update_ids.end());
  }
  std::ranges::sort(applied);
  std::vector<int> every_update(static_cast<size_t>(pushed));
  std::iota(every_update.begin(), every_update.end(), 0);
  EXPECT_EQ(applied, every_update);
  EXPECT_TRUE(driver.actions.discarded.empty());
}

// Once the budget has moved the run to ASP, a straggler is only recorded: there is no BSP to
// leave, and no switch to charge.
TEST(SyncSwitchTest, ADetectionInAspSwitchesNothing) {
  auto protocol =
      make_protocol("sync_switch", {{"bsp_fraction", 0.05}, {"online", std::string("greedy")}});
  Driver driver(*protocol, {3, 3 * 200, 1, 0.9}, scripted_episode);  // 10 BSP rounds
  driver.run_updates(3 * 60);
  EXPECT_EQ(driver.switch_story(),
            (std::vector<std::string>{"asp:budget", "detected 2", "cleared 2"}));
  EXPECT_EQ(driver.actions.switches_charged, 1);
}

// Worker 2 normally takes 2 s, the others 1 s: T is worker 2's own profiled 2 s, so BSP loses
// D·(1 − 2/3.6) = 4D/9 to it, 1.78 s with D = 4 s: under twice the overhead, it stays.
TEST(SyncSwitchTest, ElasticCountsTheStragglersOwnProfiledStepInT) {
  const auto slowest_slows_down = [](int worker, double now) {
    if (worker != 2) return 1.0;
    return now >= 30 && now < 50 ? 6.0 : 2.0;
  };
  auto protocol = elastic(4.0);
  Driver driver(*protocol, {3, 3 * 1000, 1, 0.9}, slowest_slows_down);
  driver.run_updates(3 * 30);
  const std::vector<double> losses = expected_losses(driver.actions);
  ASSERT_FALSE(losses.empty());
  EXPECT_NEAR(losses[0], 4.0 * kLossShare, 1e-9);
  EXPECT_TRUE(driver.phases().empty());
}

// D = 3.375 s: BSP loses 1.5 s, more than the 1 s overhead but not twice it.
TEST(SyncSwitchTest, ElasticStaysWhenTheExpectedLossIsUnderTwiceTheOverhead) {
  const auto one_episode = [](int worker, double now) {
    return worker == 2 && now >= 30 && now < 40 ? 3.0 : 1.0;
  };
  auto protocol = elastic(3.375);
  Driver driver(*protocol, {3, 3 * 1000, 1, 0.9}, one_episode);
  driver.run_updates(3 * 100);
  EXPECT_EQ(driver.switch_story(), (std::vector<std::string>{"detected 2", "cleared 2"}));
  EXPECT_EQ(expected_losses(driver.actions), (std::vector<double>{3.375 * kLossShare}));
}

// The straggler's ASP stage outlasts the ramp; the budget's ASP stage, later, starts its own
// ramp at m/n again.
TEST(SyncSwitchTest, EachAspStageStartsTheMomentumRampAgain) {
  auto protocol = make_protocol(
      "sync_switch",
      {{"bsp_fraction", 0.5}, {"online", std::string("greedy")}, {"ramp_steps", 10.0}});
  Driver driver(*protocol, {3, 3 * 200, 1, 0.9}, scripted_episode);  // 100 BSP rounds
  while (driver.phases().size() < 3) driver.run_updates(1);
  ASSERT_EQ(driver.phases(),
            (std::vector<std::string>{"asp:straggler", "bsp:straggler_gone", "asp:budget"}));
  driver.run_updates(5);
  EXPECT_DOUBLE_EQ(driver.actions.optimizer_changes.back().momentum, 0.9 / 3);
}

// Worker 2 dies with the last budgeted round waiting only for it: that round closes, and with
// it BSP.
TEST(SyncSwitchTest, ADeathThatClosesTheLastBudgetedRoundEndsBsp) {
  auto protocol = make_protocol("sync_switch", {{"bsp_fraction", 0.05}});
  Driver driver(*protocol, {3, 3 * 200, 1, 0.9}, uniform(1.0));  // 10 BSP rounds
  driver.run_updates(3 * 9 + 2);
  ASSERT_EQ(driver.rounds(), 9);
  driver.kill(2);
  EXPECT_EQ(driver.rounds(), 10);
  EXPECT_EQ(driver.phases(), (std::vector<std::string>{"asp:budget"}));
  driver.run_updates(4);
  EXPECT_EQ(driver.rounds(), 10) << "no round past the budget";
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

// The detector is indexed by the run's workers: a state of fewer would be written past.
TEST(SyncSwitchTest, RefusesAStateOfAnotherWorkerCount) {
  auto protocol = make_protocol("sync_switch", {{"bsp_fraction", 0.5}});
  Driver driver(*protocol, {3, 3 * 200, 1, 0.9}, scripted_episode);
  driver.run_updates(10);
  auto restored = make_protocol("sync_switch", {{"bsp_fraction", 0.5}});
  RecordingActions actions;
  restored->start({4, 4 * 200, 1, 0.9}, actions);
  EXPECT_THAT([&] { restored->restore_state(protocol->save_state()); },
              ::testing::ThrowsMessage<std::invalid_argument>(::testing::HasSubstr(
                  "sync_switch: the saved state is of 3 workers; this run has 4")));
}

}  // namespace
}  // namespace hetps::protocol
