#include "protocol/ashl.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "protocol/ashl_plan.h"
#include "support/protocol_driving.h"
#include "support/recording_actions.h"

namespace hetps::protocol {
namespace {

using ::testing::HasSubstr;
using testing::make_protocol;
using testing::RecordingActions;
using ::testing::ThrowsMessage;

// Three workers: steps of 1, 2 and 4 ms; pushes of 0.7, 3 and 1.5 ms; pulls of 0.5 ms.
constexpr double kIter[] = {0.001, 0.002, 0.004};
constexpr double kPush[] = {0.0007, 0.003, 0.0015};
constexpr double kPull = 0.0005;

class AshlTest : public ::testing::Test {
 protected:
  void start(config::ProtocolParams params) {
    params.emplace("profile_steps", 2.0);
    ashl_ = make_protocol("ashl", params);
    ashl_->start(RunShape{3, 100000, 1}, actions_);
    for (int w = 0; w < 3; ++w) ashl_->on_pull_request(w, actions_);
  }

  // Worker w commits `steps` steps at its speed (its steps taking `slowdown` times kIter[w])
  // with training loss `loss`, then pulls.
  void commit(int w, int steps, double loss = 1.0, double slowdown = 1.0) {
    UpdateInfo update;
    update.worker = w;
    update.id = next_id_++;
    update.kind = UpdateKind::Delta;
    update.clock = ++clocks_[w];
    update.steps = steps;
    update.compute_seconds = kIter[w] * steps * slowdown;
    update.push_seconds = kPush[w];
    update.pull_seconds = kPull;
    update.comm_seconds = kPush[w] + kPull;
    update.train_loss = loss;
    testing::push(*ashl_, actions_, update);
  }

  // Every worker commits `rounds` times, in id order, at its current plan's steps.
  void commit_rounds(int rounds, double loss = 1.0) {
    for (int r = 0; r < rounds; ++r) {
      for (int w = 0; w < 3; ++w) commit(w, last_plan(w).max_local_steps, loss);
    }
  }

  WorkerPlan last_plan(int worker) const {
    for (auto it = actions_.replies.rbegin(); it != actions_.replies.rend(); ++it) {
      if (it->worker == worker) return it->plan;
    }
    ADD_FAILURE() << "worker " << worker << " was never answered";
    return {};
  }

  AshlProfile expected_profile() const {
    AshlProfile profile;
    for (int w = 0; w < 3; ++w) profile.workers.push_back({kIter[w], kPush[w], kPull});
    return profile;
  }

  std::unique_ptr<Protocol> ashl_;
  RecordingActions actions_;
  int next_id_ = 1;
  int64_t clocks_[3] = {0, 0, 0};
};

TEST_F(AshlTest, ProfilesWithSingleUncompressedStepsThenPlansBothStages) {
  start({});
  for (int w = 0; w < 3; ++w) {
    EXPECT_EQ(last_plan(w).kind, UpdateKind::Delta);
    EXPECT_EQ(last_plan(w).max_local_steps, 1);
    EXPECT_EQ(last_plan(w).keep_ratio, 1.0);
  }
  // Three commits each: the first has no pull before it, the next two are measured.
  commit_rounds(2);
  EXPECT_TRUE(actions_.events_of_type("profile").empty());
  commit_rounds(1);
  const auto profiles = actions_.events_of_type("profile");
  ASSERT_EQ(profiles.size(), 1u);
  EXPECT_EQ(profiles[0].details.at("reason"), "profiled");

  // The presets as the protocol's parameters default them.
  const AshlOptions presets;
  const StagePlan ahl = plan_local_steps(expected_profile(), {presets.h_preset_ahl, "h"});
  const StagePlan shl = plan_local_steps(expected_profile(), {presets.h_preset_shl, "h"});
  const std::vector<double> r_ahl = plan_keep_ratios(
      expected_profile(), ahl.local_steps, {presets.r_preset_ahl, "r"}, {presets.min_ratio, "m"});
  EXPECT_EQ(profiles[0].details.at("ahl").at("local_steps"), ahl.local_steps);
  EXPECT_EQ(profiles[0].details.at("shl").at("local_steps"), shl.local_steps);
  EXPECT_EQ(profiles[0].details.at("ahl").at("data_shares"), ahl.data_shares);
  EXPECT_EQ(profiles[0].details.at("ahl").at("keep_ratios"), r_ahl);
  // Worker 2's commit completed the profile: its pull has AHL's plan, the others' next ones.
  EXPECT_EQ(last_plan(2).max_local_steps, ahl.local_steps[2]);
  EXPECT_EQ(last_plan(0).max_local_steps, 1);
  commit(0, 1);
  commit(1, 1);
  for (int w = 0; w < 3; ++w) {
    EXPECT_EQ(last_plan(w).max_local_steps, ahl.local_steps[w]) << w;
    EXPECT_DOUBLE_EQ(last_plan(w).keep_ratio, r_ahl[w]) << w;
    EXPECT_EQ(last_plan(w).data_shares, ahl.data_shares) << w;
  }
  EXPECT_GT(ahl.local_steps[0], ahl.local_steps[2]) << "the fast worker takes more steps";
}

TEST_F(AshlTest, WithoutCompressionEveryWorkerSendsItsWholeDelta) {
  start({{"compression", std::string("off")}});
  commit_rounds(3);
  for (int w = 0; w < 3; ++w) EXPECT_EQ(last_plan(w).keep_ratio, 1.0);
}

TEST_F(AshlTest, MergesEachCommitOnArrivalWeightedByItsDataShare) {
  start({});
  commit_rounds(3);
  // Profiling: η = M · (1/M) · (1/M).
  for (int k = 0; k < 9; ++k) EXPECT_DOUBLE_EQ(actions_.applied[k].weights.at(0), 1.0 / 3);
  const StagePlan ahl = plan_local_steps(expected_profile(), {AshlOptions{}.h_preset_ahl, "h"});
  commit_rounds(1);
  for (int w = 0; w < 3; ++w) {
    const ApplyOrder& order = actions_.applied.at(9 + w);
    EXPECT_EQ(order.kind, UpdateKind::Delta);
    EXPECT_DOUBLE_EQ(order.weights.at(0), ahl.data_shares[w]) << "η = M·D·(1/M) = D";
  }
}

TEST_F(AshlTest, AhlNeverHoldsAPull) {
  start({{"loss_preset", 0.0}});  // never switches
  commit_rounds(3);
  // The fast worker commits twenty times while the slow one commits none.
  const size_t replies = actions_.replies.size();
  for (int k = 0; k < 20; ++k) commit(0, 4);
  EXPECT_EQ(actions_.replies.size(), replies + 20);
}

TEST_F(AshlTest, SwitchesAtTheFirstCommitWhereTheGlobalLossReachesThePresetAndNeverBack) {
  start({{"loss_preset", 0.5}});  // relative: half the first global loss
  commit_rounds(3, 2.0);          // the first global loss: 2.0
  commit(0, 1, 1.0);              // mean of the last three: (2 + 2 + 1) / 3
  commit(1, 1, 1.0);              // (2 + 1 + 1) / 3
  EXPECT_TRUE(actions_.events_of_type("phase").empty());
  commit(2, 1, 1.0);  // (1 + 1 + 1) / 3 = 1.0: at the preset
  auto phases = actions_.events_of_type("phase");
  ASSERT_EQ(phases.size(), 1u);
  EXPECT_EQ(phases[0].details.at("from"), "ahl");
  EXPECT_EQ(phases[0].details.at("to"), "shl");
  EXPECT_DOUBLE_EQ(phases[0].details.at("global_loss").get<double>(), 1.0);
  const StagePlan shl = plan_local_steps(expected_profile(), {AshlOptions{}.h_preset_shl, "h"});
  EXPECT_EQ(last_plan(2).max_local_steps, shl.local_steps[2]);

  commit_rounds(2, 5.0);  // the loss rises again: SHL stays
  EXPECT_EQ(actions_.events_of_type("phase").size(), 1u);
}

// The first global loss is the mean of the first M = 3 commits' losses, (9 + 3 + 3) / 3 = 5,
// not the first commit's 9: the preset is 2.5, which losses of 3 do not reach.
TEST_F(AshlTest, TheFirstGlobalLossIsTheMeanOfTheFirstMCommits) {
  start({{"loss_preset", 0.5}});
  commit(0, 1, 9.0);
  commit(1, 1, 3.0);
  commit(2, 1, 3.0);
  commit_rounds(3, 3.0);
  EXPECT_TRUE(actions_.events_of_type("phase").empty());
  commit_rounds(1, 1.0);
  const auto phases = actions_.events_of_type("phase");
  ASSERT_EQ(phases.size(), 1u);
  EXPECT_DOUBLE_EQ(phases[0].details.at("loss_preset").get<double>(), 2.5);
}

TEST_F(AshlTest, AnAbsolutePresetComparesTheLossItself) {
  start({{"loss_preset", 0.9}, {"loss_preset_relative", std::string("no")}});
  commit_rounds(3, 1.0);
  commit_rounds(1, 0.95);
  EXPECT_TRUE(actions_.events_of_type("phase").empty());
  commit_rounds(1, 0.9);
  EXPECT_EQ(actions_.events_of_type("phase").size(), 1u);
}

TEST_F(AshlTest, ShlHoldsAWorkerMoreThanSPresetCommitsAheadCountingFromTheSwitch) {
  start({{"loss_preset", 1.0}, {"s_preset", 1.0}});  // switches once three losses are in
  commit_rounds(3);
  ASSERT_EQ(actions_.events_of_type("phase").size(), 1u);
  // Worker 2's switching commit does not count: all three start SHL at 0 commits.
  const size_t replies = actions_.replies.size();
  commit(0, 1);  // 1 − 0 ≤ 1: answered
  EXPECT_EQ(actions_.replies.size(), replies + 1);
  commit(0, 1);  // 2 − 0 > 1: held
  EXPECT_EQ(actions_.replies.size(), replies + 1);
  commit(1, 1);  // worker 1 is answered; worker 0 still 2 ahead of worker 2
  EXPECT_EQ(actions_.replies.back().worker, 1);
  EXPECT_EQ(actions_.replies.size(), replies + 2);
  actions_.take_replied_workers();
  commit(2, 1);  // the fewest is 1 now: worker 0 goes on as the commit lands, then worker 2
  EXPECT_EQ(actions_.take_replied_workers(), (std::vector<int>{0, 2}));
}

TEST_F(AshlTest, ADeadWorkerNoLongerHoldsTheOthersBack) {
  start({{"loss_preset", 1.0}, {"s_preset", 0.0}});
  commit_rounds(3);
  actions_.take_replied_workers();
  commit(0, 1);  // 1 ahead of workers 1 and 2: held
  commit(1, 1);  // 1 ahead of worker 2: held
  EXPECT_TRUE(actions_.take_replied_workers().empty());
  ashl_->on_worker_failed(2, actions_);
  EXPECT_EQ(actions_.take_replied_workers(), (std::vector<int>{0, 1}));
}

TEST_F(AshlTest, PlansAgainWhenAWorkersStepTimeDrifts) {
  start({{"loss_preset", 0.0}, {"window", 2.0}, {"reprofile_drift", 0.5}});
  commit_rounds(3);
  ASSERT_EQ(actions_.events_of_type("profile").size(), 1u);
  // Worker 0's steps take three times as long: its window mean reaches 3 ms after two commits.
  for (int k = 0; k < 2; ++k) commit(0, 2, 1.0, 3.0);
  const auto profiles = actions_.events_of_type("profile");
  ASSERT_EQ(profiles.size(), 2u);
  EXPECT_EQ(profiles[1].details.at("reason"), "drift");
  // Planned again at the first slow commit: the window's mean (1 ms + 3 ms) / 2 drifted 100%.
  EXPECT_DOUBLE_EQ(profiles[1].details.at("times").at(0).at("t_iter").get<double>(), 2 * kIter[0]);
}

// spec: the drift is |now − planned| / planned; a worker four times faster drifts too.
TEST_F(AshlTest, PlansAgainWhenAWorkerBecomesFaster) {
  start({{"loss_preset", 0.0}, {"window", 2.0}, {"reprofile_drift", 0.5}});
  commit_rounds(3);
  ASSERT_EQ(actions_.events_of_type("profile").size(), 1u);
  for (int k = 0; k < 2; ++k) commit(0, 4, 1.0, 0.25);
  const auto profiles = actions_.events_of_type("profile");
  ASSERT_EQ(profiles.size(), 2u);
  EXPECT_EQ(profiles[1].details.at("reason"), "drift");
}

// Workers 0 and 2 compress in AHL and push in a tenth of the time; the plan made when worker 1
// dies still takes the dense push times measured while profiling.
TEST_F(AshlTest, CompressedPushTimesStayOutOfTPush) {
  start({{"loss_preset", 0.0}});
  commit_rounds(3);
  commit(0, 1);  // the last profiling plans: AHL's follow
  commit(1, 1);
  for (int w : {0, 2}) {
    ASSERT_LT(last_plan(w).keep_ratio, 1.0) << w;
    UpdateInfo update;
    update.worker = w;
    update.id = next_id_++;
    update.clock = ++clocks_[w];
    update.steps = last_plan(w).max_local_steps;
    update.compute_seconds = kIter[w] * update.steps;
    update.push_seconds = kPush[w] / 10;
    update.pull_seconds = kPull;
    testing::push(*ashl_, actions_, update);
  }
  ashl_->on_worker_failed(1, actions_);
  const auto profiles = actions_.events_of_type("profile");
  ASSERT_EQ(profiles.size(), 2u);
  const auto& times = profiles[1].details.at("times");
  ASSERT_EQ(times.size(), 2u);
  EXPECT_DOUBLE_EQ(times[0].at("t_push").get<double>(), kPush[0]);
  EXPECT_DOUBLE_EQ(times[1].at("t_push").get<double>(), kPush[2]);
}

TEST_F(AshlTest, ProfilingCountsMeasuredCommitsBeyondTheWindow) {
  start({{"profile_steps", 4.0}, {"window", 2.0}});
  commit_rounds(4);
  EXPECT_TRUE(actions_.events_of_type("profile").empty()) << "3 measured commits each";
  commit_rounds(1);
  EXPECT_EQ(actions_.events_of_type("profile").size(), 1u);
}

TEST_F(AshlTest, ADeathAfterProfilingPlansTheSurvivorsAgain) {
  start({{"loss_preset", 0.0}});
  commit_rounds(3);
  ashl_->on_worker_failed(1, actions_);
  const auto profiles = actions_.events_of_type("profile");
  ASSERT_EQ(profiles.size(), 2u);
  EXPECT_EQ(profiles[1].details.at("reason"), "failure");
  const auto shares = profiles[1].details.at("ahl").at("data_shares").get<std::vector<double>>();
  EXPECT_EQ(shares[1], 0.0);
  EXPECT_DOUBLE_EQ(shares[0] + shares[2], 1.0);
  // A late update of the dead worker is dropped, not merged.
  const size_t applied = actions_.applied.size();
  commit(1, 1);
  EXPECT_EQ(actions_.applied.size(), applied);
  EXPECT_EQ(actions_.discarded.back(), next_id_ - 1);
}

TEST_F(AshlTest, RefusesAStateOfAnotherRunAndKeepsItsOwn) {
  start({});
  commit_rounds(3);
  const nlohmann::json before = ashl_->save_state();
  nlohmann::json wrong = before;
  wrong["stage"] = 7;
  EXPECT_THAT([&] { ashl_->restore_state(wrong); },
              ThrowsMessage<std::invalid_argument>(HasSubstr("stage 7")));
  wrong = before;
  wrong["live"] = std::vector<int>{0, 5};
  EXPECT_THAT([&] { ashl_->restore_state(wrong); },
              ThrowsMessage<std::invalid_argument>(
                  HasSubstr("worker 5 of its live workers or held pulls is not in this run")));
  wrong = before;
  wrong["stage"] = 2;  // SHL, whose plan a pull would read
  wrong["shl"][0] = nlohmann::json::array();
  EXPECT_THAT([&] { ashl_->restore_state(wrong); },
              ThrowsMessage<std::invalid_argument>(HasSubstr("stage 2 has no plan")));
  EXPECT_EQ(ashl_->save_state(), before);
}

TEST_F(AshlTest, RefusesACoarserSecondStage) {
  EXPECT_THAT(
      [] {
        make_protocol("ashl", {{"h_preset_ahl", 2.0}, {"h_preset_shl", 4.0}});
      },
      ThrowsMessage<std::invalid_argument>(HasSubstr("protocol.h_preset_shl = 4")));
  EXPECT_THAT(
      [] {
        make_protocol("ashl", {{"r_preset_ahl", 0.5}, {"r_preset_shl", 0.1}});
      },
      ThrowsMessage<std::invalid_argument>(HasSubstr("protocol.r_preset_shl = 0.1")));
}

TEST_F(AshlTest, ARestoredProtocolContinuesWhereTheSavedOneWas) {
  start({{"loss_preset", 1.0}, {"s_preset", 1.0}});
  commit_rounds(3);
  commit(0, 1);
  commit(0, 1);  // held
  auto restored =
      make_protocol("ashl", {{"loss_preset", 1.0}, {"s_preset", 1.0}, {"profile_steps", 2.0}});
  RecordingActions after;
  restored->start(RunShape{3, 100000, 1}, after);
  restored->restore_state(ashl_->save_state());
  EXPECT_EQ(restored->save_state(), ashl_->save_state());
  // Worker 1 and 2 commit: on both, worker 0 is released at the same point.
  for (int w : {1, 2}) {
    UpdateInfo update;
    update.worker = w;
    update.id = next_id_++;
    update.clock = ++clocks_[w];
    testing::push(*ashl_, actions_, update);
    testing::push(*restored, after, update);
  }
  EXPECT_EQ(after.replies.back().worker, actions_.replies.back().worker);
  EXPECT_EQ(after.replies.back().plan, actions_.replies.back().plan);
}

}  // namespace
}  // namespace hetps::protocol
