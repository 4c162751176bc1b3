// Every protocol's save_state holds all it will act on: a protocol restored mid-run into a fresh
// one of the same config, then fed the same events as the one that never stopped, takes the
// same decisions and ends in the same state.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <queue>
#include <string>
#include <vector>

#include "support/protocol_driving.h"
#include "support/recording_actions.h"
#include "support/through_cbor.h"

namespace hetps::protocol {
namespace {

using testing::RecordingActions;

constexpr int kWorkers = 5;
constexpr int kBatch = 8;
const RunShape kShape{kWorkers, 400 * kWorkers* kBatch, kBatch, 0.9, 11};

// The engine around a protocol: workers of unequal speeds and links run each plan they get
// (a member sends to its leader, a leader waits for its members and pushes their merge) and
// push when their steps are done, in virtual time; `kill_at` crashes worker 2 at that event. A
// copy carries the engine's side over to a restored protocol.
class VirtualWorkers {
 public:
  VirtualWorkers(Protocol& protocol, RecordingActions& actions, int kill_at)
      : protocol_(&protocol), actions_(&actions), kill_at_(kill_at), workers_(kWorkers) {}

  void start() {
    protocol_->start(kShape, *actions_);
    for (int w = 0; w < kWorkers; ++w) protocol_->on_pull_request(w, *actions_);
    schedule_replies();
  }

  // This engine, with its workers where they are, around another protocol and its actions.
  VirtualWorkers carried_over_to(Protocol& protocol, RecordingActions& actions) const {
    VirtualWorkers copy = *this;
    copy.protocol_ = &protocol;
    copy.actions_ = &actions;
    copy.replies_seen_ = actions.replies.size();
    return copy;
  }

  // Handles up to `count` more events; false once nothing is left to happen.
  bool run_events(int count) {
    for (int e = 0; e < count; ++e, ++events_) {
      if (events_ == kill_at_) {
        kill(2);
        schedule_replies();
      }
      if (done_.empty()) return false;
      const Done done = done_.top();
      done_.pop();
      now_ = done.time;
      finish_steps(done.worker);
      schedule_replies();
    }
    return true;
  }

 private:
  struct Worker {
    WorkerPlan plan;
    int64_t reply_version = 0;
    int64_t clock = 0;
    int steps_done = 0;
    bool dead = false;
    bool own_steps_done = false;  // a leader's
    std::vector<int> arrived;     // a leader's members whose updates it holds
  };
  struct Done {
    double time;
    int64_t sequence;
    int worker;
    bool operator>(const Done& other) const {
      return time != other.time ? time > other.time : sequence > other.sequence;
    }
  };

  static double step_seconds(int worker, int64_t step) {
    return (1.0 + 0.7 * worker) * (1.0 + 0.1 * std::sin(static_cast<double>(step)));
  }
  static double round_trip(int worker) { return 0.05 + 0.03 * (kWorkers - worker); }

  // SaPus decides when to push: a plan with a change threshold stops after a made-up count.
  static int steps_of(const WorkerPlan& plan, int worker, int64_t clock) {
    if (plan.change_threshold <= 0) return plan.max_local_steps;
    return 1 + static_cast<int>((worker * 7 + clock * 3) % plan.max_local_steps);
  }

  void schedule_replies() {
    for (; replies_seen_ < actions_->replies.size(); ++replies_seen_) {
      const RecordingActions::Reply& reply = actions_->replies[replies_seen_];
      Worker& worker = workers_[static_cast<size_t>(reply.worker)];
      if (worker.dead) continue;
      worker.plan = reply.plan;
      worker.reply_version = reply.version;
      worker.own_steps_done = false;
      worker.steps_done = steps_of(reply.plan, reply.worker, worker.clock);
      double seconds = round_trip(reply.worker);
      for (int s = 0; s < worker.steps_done; ++s) seconds += step_seconds(reply.worker, s);
      done_.push({now_ + seconds, sequence_++, reply.worker});
    }
  }

  UpdateInfo update_of(int w) {
    Worker& worker = workers_[static_cast<size_t>(w)];
    UpdateInfo info;
    info.id = next_id_++;
    info.worker = w;
    info.kind = worker.plan.kind;
    info.base_version = worker.reply_version;
    info.clock = ++worker.clock;
    info.steps = worker.steps_done;
    info.samples = int64_t{worker.steps_done} * kBatch;
    info.train_loss = 2.0 / (1.0 + 0.03 * static_cast<double>(next_id_)) + 0.01 * w;
    info.compute_seconds = step_seconds(w, 0) * worker.steps_done;
    info.comm_seconds = round_trip(w);
    info.push_seconds = round_trip(w) / 3;
    info.pull_seconds = round_trip(w) * 2 / 3;
    info.now = now_;
    return info;
  }

  void finish_steps(int w) {
    Worker& worker = workers_[static_cast<size_t>(w)];
    if (worker.dead) return;
    const int leader = worker.plan.send_to;
    if (leader != kServer) {
      Worker& to = workers_[static_cast<size_t>(leader)];
      if (to.dead) {  // its update went with its leader: it asks the server
        protocol_->on_pull_request(w, *actions_);
        return;
      }
      to.arrived.push_back(w);
      push_merged_when_complete(leader);
      return;
    }
    if (!worker.plan.gather_from.empty()) {
      worker.own_steps_done = true;
      push_merged_when_complete(w);
      return;
    }
    protocol_->on_update(update_of(w), *actions_);
    protocol_->on_pull_request(w, *actions_);
  }

  void push_merged_when_complete(int leader) {
    Worker& worker = workers_[static_cast<size_t>(leader)];
    if (!worker.own_steps_done) return;
    for (int member : worker.plan.gather_from) {
      const bool arrived = std::ranges::find(worker.arrived, member) != worker.arrived.end();
      if (!arrived && !workers_[static_cast<size_t>(member)].dead) return;
    }
    UpdateInfo info = update_of(leader);
    std::vector<int> members = worker.arrived;
    std::ranges::sort(members);
    info.merged_step_seconds = {step_seconds(leader, 0)};
    for (int member : members) info.merged_step_seconds.push_back(step_seconds(member, 0));
    info.members = members;
    worker.arrived.clear();
    worker.own_steps_done = false;
    testing::push(*protocol_, *actions_, info);
  }

  void kill(int w) {
    Worker& worker = workers_[static_cast<size_t>(w)];
    worker.dead = true;
    protocol_->on_worker_failed(w, *actions_);
    // Members it held pull from the server; a leader waiting for it waits no more.
    for (int member : worker.arrived) protocol_->on_pull_request(member, *actions_);
    worker.arrived.clear();
    for (int l = 0; l < kWorkers; ++l) {
      if (!workers_[static_cast<size_t>(l)].dead) push_merged_when_complete(l);
    }
  }

  Protocol* protocol_;
  RecordingActions* actions_;
  int kill_at_;
  std::vector<Worker> workers_;
  std::priority_queue<Done, std::vector<Done>, std::greater<>> done_;
  size_t replies_seen_ = 0;
  double now_ = 0;
  int64_t sequence_ = 0;
  int events_ = 0;
  int next_id_ = 0;
};

// Everything a protocol asked of its engine from the given counts on, comparable and printable.
nlohmann::json decisions_since(const RecordingActions& actions, const RecordingActions& counts) {
  nlohmann::json decisions = nlohmann::json::array();
  for (size_t a = counts.applied.size(); a < actions.applied.size(); ++a) {
    const ApplyOrder& order = actions.applied[a];
    decisions.push_back({{"apply", order.kind == UpdateKind::Gradient ? "gradient" : "delta"},
                         {"ids", order.update_ids},
                         {"weights", order.weights}});
  }
  for (size_t r = counts.replies.size(); r < actions.replies.size(); ++r) {
    const auto& [worker, plan, version] = actions.replies[r];
    decisions.push_back({{"reply", worker},
                         {"version", version},
                         {"kind", plan.kind == UpdateKind::Gradient ? "gradient" : "delta"},
                         {"max_local_steps", plan.max_local_steps},
                         {"change_threshold", plan.change_threshold},
                         {"keep_ratio", plan.keep_ratio},
                         {"error_feedback", plan.error_feedback},
                         {"send_to", plan.send_to},
                         {"gather_from", plan.gather_from},
                         {"data_shares", plan.data_shares}});
  }
  for (size_t d = counts.discarded.size(); d < actions.discarded.size(); ++d) {
    decisions.push_back({{"discard", actions.discarded[d]}});
  }
  for (size_t o = counts.optimizer_changes.size(); o < actions.optimizer_changes.size(); ++o) {
    decisions.push_back({{"lr_scale", actions.optimizer_changes[o].lr_scale},
                         {"momentum", actions.optimizer_changes[o].momentum}});
  }
  for (size_t e = counts.events.size(); e < actions.events.size(); ++e) {
    decisions.push_back(
        {{"event", actions.events[e].type}, {"details", actions.events[e].details}});
  }
  return decisions;
}

struct ProtocolUnderTest {
  std::string name;
  config::ProtocolParams params;
};

void PrintTo(const ProtocolUnderTest& protocol, std::ostream* out) { *out << protocol.name; }

class ProtocolStateTest : public ::testing::TestWithParam<ProtocolUnderTest> {
 protected:
  std::unique_ptr<Protocol> make() const {
    return testing::make_protocol(GetParam().name, GetParam().params);
  }
};

constexpr int kKillAt = 230;
constexpr int kEventsAfterTheSave = 250;

TEST_P(ProtocolStateTest, ARestoredProtocolDecidesAsTheOneThatNeverStopped) {
  // Early, mid-run, just before a worker fails and after it.
  for (int saved_at : {3, 60, 225, 300}) {
    SCOPED_TRACE("saved after " + std::to_string(saved_at) + " events");
    auto original = make();
    RecordingActions original_actions;
    VirtualWorkers original_engine(*original, original_actions, kKillAt);
    original_engine.start();
    ASSERT_TRUE(original_engine.run_events(saved_at)) << "the run ended before the save";
    const RecordingActions at_save = original_actions;

    auto restored = make();
    RecordingActions dropped;
    restored->start(kShape, dropped);  // as an engine resumes: sized by start, then restored
    restored->restore_state(testing::through_cbor(original->save_state()));
    EXPECT_EQ(restored->save_state(), original->save_state());
    RecordingActions restored_actions(original_actions.version());
    VirtualWorkers restored_engine = original_engine.carried_over_to(*restored, restored_actions);

    original_engine.run_events(kEventsAfterTheSave);
    restored_engine.run_events(kEventsAfterTheSave);
    const nlohmann::json expected = decisions_since(original_actions, at_save);
    EXPECT_EQ(decisions_since(restored_actions, RecordingActions()), expected);
    EXPECT_GE(original_actions.applied.size() - at_save.applied.size(), 10u)
        << "the run goes on after the save";
    EXPECT_EQ(restored->save_state(), original->save_state());
  }
}

INSTANTIATE_TEST_SUITE_P(
    EveryProtocol, ProtocolStateTest,
    ::testing::Values(
        ProtocolUnderTest{"bsp", {}}, ProtocolUnderTest{"asp", {}},
        ProtocolUnderTest{"ssp", {{"staleness", 2.0}}},
        ProtocolUnderTest{"local_sgd", {{"local_steps", 3.0}}},
        ProtocolUnderTest{"sync_switch",
                          {{"bsp_fraction", 0.5},
                           {"budget_steps", 100.0},
                           {"online", std::string("greedy")},
                           {"ramp_steps", 20.0}}},
        ProtocolUnderTest{"petrel",
                          {{"profile_steps", 3.0}, {"regroup_interval", 40.0}, {"window", 4.0}}},
        ProtocolUnderTest{"ashl", {{"profile_steps", 2.0}, {"loss_preset", 0.5}, {"window", 3.0}}},
        ProtocolUnderTest{"sapus", {{"window", 4.0}, {"tau_cap", 8.0}, {"perf_window", 4.0}}}),
    [](const ::testing::TestParamInfo<ProtocolUnderTest>& info) { return info.param.name; });

}  // namespace
}  // namespace hetps::protocol
