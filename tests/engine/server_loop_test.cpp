// ServerLoop driven by a made-up engine whose clock jumps to each deadline: the loop's own
// decisions (stalls, injected hangs and crashes, checkpoints, dead leaders) in exact engine
// time, with no threads.
#include "engine/server_loop.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "engine/engine.h"
#include "engine/shard_failures.h"
#include "leader_rounds.h"
#include "small_run.h"
#include "support/softmax_learner.h"

namespace hetps::engine {
namespace {

using testing::CollectingListener;
using testing::small_config;
using testing::small_data;

// The update `reply` asks for, written into its buffer: `samples` samples' worth of zeros.
protocol::UpdateInfo zeros_for(const ServerLoop::Reply& reply, int64_t samples) {
  std::ranges::fill(reply.update, 0.0f);
  protocol::UpdateInfo info;
  info.id = reply.update_id;
  info.worker = reply.worker;
  info.kind = reply.plan.kind;
  info.base_version = reply.version;
  info.samples = samples;
  return info;
}

// Hands over the first pulls it is given, one per call; from `updates_from` on, the updates the
// replies sent ask for, one per call, each of one batch of zeros, up to `updates` of them. When
// nothing more comes, the clock goes to the deadline.
class ScriptedEngine : public ServerLoop::Engine {
 public:
  explicit ScriptedEngine(std::vector<int> first_pulls)
      : first_pulls_(first_pulls.begin(), first_pulls.end()) {}
  double now = 0;
  double updates_from = 0;
  int updates = 0;
  double seconds_per_send = 0;                 // how long handing over a reply takes
  std::vector<std::pair<int, int>> told_gone;  // (leader, member) notices
  void send(ServerLoop::Reply reply) override {
    replies_.push_back(std::move(reply));
    now += seconds_per_send;
  }
  void serve_one(double deadline, ServerLoop& server) override {
    if (!first_pulls_.empty()) {
      const int worker = first_pulls_.front();
      first_pulls_.pop_front();
      server.on_first_pull(worker);
    } else if (now >= updates_from && updates > 0 && !replies_.empty()) {
      --updates;
      const ServerLoop::Reply reply = std::move(replies_.front());
      replies_.pop_front();
      server.on_update(zeros_for(reply, 16), 0);
    } else {
      now = deadline;
    }
  }
  void evaluate(ServerState& state, double time) override { state.evaluate(time); }
  void tell_member_gone(int leader, int member) override { told_gone.emplace_back(leader, member); }
  std::vector<int> close_leader(int /*leader*/) override { return {}; }

 private:
  std::deque<int> first_pulls_;
  std::deque<ServerLoop::Reply> replies_;
};

struct ScriptedRun {
  explicit ScriptedRun(const config::Config& run_config, std::vector<int> first_pulls)
      : config(run_config),
        engine(std::move(first_pulls)),
        loop(
            config, small_data(), learner, log, engine, [this] { return engine.now; },
            [](int worker) { return fmt::format("worker {}", worker); }) {}
  config::Config config;
  testing::SoftmaxLearner learner{784, 10, 1};
  CollectingListener log;
  ScriptedEngine engine;
  ServerLoop loop;
};

config::Config asp_stalling_after(double seconds) {
  config::Config config = small_config("asp");
  config.train.eval_interval = 100;
  config.run.stall_warning_s = seconds / 2;
  config.run.stall_timeout_s = seconds;
  return config;
}

// `config` for the test protocol "leader_rounds" with one community: worker 0 leads workers 1
// and 2 (its registration must be alive).
config::Config community_of_three(config::Config config) {
  config.protocol.name = "leader_rounds";
  config.protocol.params["split"] = 3.0;
  config.cluster.workers = 3;
  config.cluster.speeds = {1.0};
  return config;
}

// Starts `run`'s loop and hands it the first pulls of workers 0, 1 and 2: the round is answered.
void start_round(ScriptedRun& run) {
  run.loop.start();
  for (int worker : {0, 1, 2}) run.loop.on_first_pull(worker);
}

// A worker stuck before it ever asks (loading its data, say) is named for what it never sent.
TEST(ServerLoopTest, AWorkerThatNeverPullsIsAStallNamingItsFirstPull) {
  ScriptedRun run(asp_stalling_after(2), {0, 1, 2});  // worker 3 never asks
  run.loop.start();
  try {
    run.loop.serve();
    FAIL() << "the run did not stall";
  } catch (const StallError& stall) {
    EXPECT_NE(std::string(stall.what()).find("worker 3 (waiting for its first pull since 0.0 s"),
              std::string::npos)
        << stall.what();
  }
}

// A hang due at the very instant of a shard crash happened by then: the run log records it,
// before the crash that ends the run.
TEST(ServerLoopTest, AHangDueAtAShardCrashIsLoggedBeforeIt) {
  config::Config config = asp_stalling_after(10);
  config.cluster.servers = 2;
  config.cluster.failures = {{.worker = 2, .time = 0.5, .kind = "hang"}};
  config.cluster.shard_failures = {{.shard = 1, .time = 0.5}};
  ScriptedRun run(config, {0, 1, 2, 3});
  run.loop.start();
  EXPECT_THROW(run.loop.serve(), ShardCrashed);
  std::vector<nlohmann::json> failures;
  for (const nlohmann::json& event : run.log.events) {
    if (event.at("type") == "worker_hung" || event.at("type") == "shard_failed") {
      failures.push_back(event);
    }
  }
  const std::vector<nlohmann::json> expected = {
      {{"type", "worker_hung"}, {"time", 0.5}, {"worker", 2}, {"kind", "hang"}},
      {{"type", "shard_failed"}, {"time", 0.5}, {"shard", 1}}};
  EXPECT_EQ(failures, expected);
}

// A checkpoint waits for a worker whose crash is due but not heard of yet: it may still be
// writing down where it stopped. Here every worker's update came during the drain, so all would
// rest but for worker 3, whose crash was due at the very time the checkpoint was.
TEST(ServerLoopTest, ACheckpointWaitsForAWorkerWhoseFailureIsDueButNotHeardOf) {
  struct Counting : ServerLoop::Checkpointer {
    explicit Counting(const RunCheckpoints& checkpoints) : schedule_(checkpoints, 0.5) {}
    CheckpointSchedule& schedule() override { return schedule_; }
    bool take(ServerLoop& /*loop*/) override {
      ++taken;
      return true;
    }
    CheckpointSchedule schedule_;
    int taken = 0;
  };
  RunCheckpoints checkpoints;
  checkpoints.save = [](const nlohmann::json&, double) {};
  const auto checkpoints_taken = [&](std::vector<config::WorkerFailure> failures) {
    config::Config config = asp_stalling_after(10);
    config.cluster.failures = std::move(failures);
    config.train.max_time = 1;
    ScriptedRun run(config, {0, 1, 2, 3});
    run.loop.start();
    Counting checkpointer(checkpoints);
    run.engine.updates_from = 0.5;  // when the checkpoint is due
    run.engine.updates = 4;
    EXPECT_EQ(run.loop.serve(&checkpointer), "max_time");  // nothing came after the updates
    return checkpointer.taken;
  };
  EXPECT_EQ(checkpoints_taken({}), 1);
  EXPECT_EQ(checkpoints_taken({{.worker = 3, .time = 0.5, .kind = "crash"}}), 0);
}

// Hands the loop, at its second call, the leader's merged update of the first round (whose
// replies it has sent), then the leader's death; otherwise its clock goes to the deadline.
class LeaderDyingWithItsRepliesHeld : public ServerLoop::Engine {
 public:
  double now = 0;
  std::vector<ServerLoop::Reply> sent;
  void send(ServerLoop::Reply reply) override { sent.push_back(std::move(reply)); }
  void serve_one(double deadline, ServerLoop& server) override {
    if (calls_++ != 1) {
      now = deadline;
      return;
    }
    const ServerLoop::Reply& leader = sent.front();
    protocol::UpdateInfo info = zeros_for(leader, 3 * 16);
    info.members = {1, 2};
    server.on_update(info, 0);
    server.on_worker_gone(leader.worker, "", {});
  }
  void evaluate(ServerState& state, double time) override { state.evaluate(time); }
  void tell_member_gone(int /*leader*/, int /*member*/) override {}
  std::vector<int> close_leader(int /*leader*/) override { return {}; }

 private:
  int calls_ = 0;
};

// A loop of "leader_rounds" on LeaderDyingWithItsRepliesHeld, with its own learner and log.
struct LeaderRun {
  explicit LeaderRun(const config::Config& run_config)
      : config(run_config),
        loop(
            config, small_data(), learner, log, engine, [this] { return engine.now; },
            [](int worker) { return fmt::format("worker {}", worker); }) {}
  config::Config config;
  LeaderDyingWithItsRepliesHeld engine;
  testing::SoftmaxLearner learner{784, 10, 1};
  CollectingListener log;
  ServerLoop loop;
};

// Takes one checkpoint, at 0.5 s, keeping the loop's state.
struct KeepingCheckpointer : ServerLoop::Checkpointer {
  explicit KeepingCheckpointer(const RunCheckpoints& checkpoints) : schedule_(checkpoints, 0.5) {}
  CheckpointSchedule& schedule() override { return schedule_; }
  bool take(ServerLoop& loop) override {
    kept = loop.save_state();
    return true;
  }
  CheckpointSchedule schedule_;
  nlohmann::json kept;
};

config::Config leader_rounds_for_a_second() {
  config::Config config = community_of_three(asp_stalling_after(10));
  config.train.max_time = 1;
  return config;
}

// A checkpoint holds the replies of the round after the leader's update, the members' to go
// through the leader; the leader dies before they leave: the server sends them itself.
TEST(ServerLoopTest, RepliesHeldForADeadLeaderToHandOnAreSentByTheServer) {
  const protocol::ProtocolRegistration leader_rounds = testing::LeaderRounds::registration();
  LeaderRun run(leader_rounds_for_a_second());
  run.loop.start();
  for (int worker : {0, 1, 2}) run.loop.on_first_pull(worker);
  ASSERT_EQ(run.engine.sent.size(), 3u);
  ASSERT_EQ(run.engine.sent.front().worker, 0) << "the leader's reply goes first";
  RunCheckpoints checkpoints;
  checkpoints.save = [](const nlohmann::json&, double) {};
  KeepingCheckpointer checkpointer(checkpoints);
  EXPECT_EQ(run.loop.serve(&checkpointer), "max_time");
  ASSERT_EQ(run.engine.sent.size(), 5u) << "the members' replies of the second round";
  for (size_t r = 3; r < 5; ++r) {
    EXPECT_EQ(run.engine.sent[r].via, protocol::kServer)
        << "the reply to worker " << run.engine.sent[r].worker;
  }

  // An earlier hetps counted a held reply's bytes as it was made, and left these for the dead
  // leader to hand on: resumed from its checkpoint, they are counted once, from the server.
  nlohmann::json earlier = checkpointer.kept;
  ASSERT_EQ(earlier.at("held_replies").size(), 2u);
  earlier.erase("replies_counted_as_they_leave");
  for (nlohmann::json& reply : earlier.at("held_replies")) reply["via"] = 0;
  const auto resumed = [](const nlohmann::json& state) {
    LeaderRun from(leader_rounds_for_a_second());
    from.loop.restore_state(state);
    from.loop.release_replies();
    from.loop.state().evaluate(2);
    for (const ServerLoop::Reply& reply : from.engine.sent) {
      EXPECT_EQ(reply.via, protocol::kServer) << "the reply to worker " << reply.worker;
    }
    return std::pair{from.log.evals.back(), from.loop.state().model_bytes()};
  };
  const auto [as_saved, model_bytes] = resumed(checkpointer.kept);
  const auto [as_earlier, ignored] = resumed(earlier);
  EXPECT_EQ(as_earlier.bytes_from_server, as_saved.bytes_from_server);
  EXPECT_EQ(as_saved.bytes_worker_to_worker - as_earlier.bytes_worker_to_worker, 2 * model_bytes)
      << "the two replies, counted by the earlier hetps as worker-to-worker, taken back";
}

// Handing a round's replies to the engine takes a while (under a sanitizer, say): the stall
// found at the first one's timeout names every worker of the round, not that one alone.
TEST(ServerLoopTest, AStallNamesEveryWorkerOfARoundSentTogether) {
  const protocol::ProtocolRegistration leader_rounds = testing::LeaderRounds::registration();
  ScriptedRun run(community_of_three(asp_stalling_after(2)), {});
  run.engine.seconds_per_send = 0.1;
  start_round(run);
  try {
    run.loop.serve();
    FAIL() << "the run did not stall";
  } catch (const StallError& stall) {
    for (int worker : {0, 1, 2}) {
      EXPECT_NE(std::string(stall.what())
                    .find(fmt::format("worker {} (waiting for its update since 0.0 s", worker)),
                std::string::npos)
          << stall.what();
    }
  }
}

// A member whose leader died before it sent its update dies in turn: nobody is left to read its
// buffer, so the server frees it, and no notice goes to the dead leader.
TEST(ServerLoopTest, AMemberDyingAfterItsLeaderHasItsUpdateFreedByTheServer) {
  const protocol::ProtocolRegistration leader_rounds = testing::LeaderRounds::registration();
  ScriptedRun run(community_of_three(asp_stalling_after(10)), {});
  start_round(run);
  ASSERT_GE(run.loop.owed_update(1), 0) << "worker 0 leads workers 1 and 2, all answered";
  run.loop.on_worker_gone(0, "", {});  // before either member sent it its update
  run.loop.on_worker_gone(1, "", {});
  EXPECT_EQ(run.loop.owed_update(1), -1);
  EXPECT_TRUE(run.engine.told_gone.empty());
}

// What workers say of their updates in a round with leaders makes the stall message, but only
// for the round the server waits for: on mpi a notice may come after its round ended.
TEST(ServerLoopTest, ANoticeOfAnotherRoundIsNotTakenForThisOnes) {
  const protocol::ProtocolRegistration leader_rounds = testing::LeaderRounds::registration();
  ScriptedRun run(community_of_three(asp_stalling_after(2)), {});
  start_round(run);
  run.loop.on_round_progress(0, RoundProgress::kGathering, run.loop.owed_update(0));
  run.loop.on_round_progress(1, RoundProgress::kWithLeader, run.loop.owed_update(1));
  // Another round's notice: update ids are never reused, so it names another id.
  run.loop.on_round_progress(2, RoundProgress::kWithLeader, run.loop.owed_update(2) + 1);
  try {
    run.loop.serve();
    FAIL() << "the run did not stall";
  } catch (const StallError& stall) {
    const std::string message = stall.what();
    EXPECT_NE(message.find("worker 0 (waiting for its update since 0.0 s, 2.0 s ago; the worker "
                           "itself waits for the update of its member worker 2)"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("worker 1 (waiting for its update since 0.0 s, 2.0 s ago; the worker "
                           "itself waits for its leader worker 0, which has its update)"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("worker 2 (waiting for its update since 0.0 s, 2.0 s ago)"),
              std::string::npos)
        << message;
  }
}

// A leader that has every member's update pushes: a shard that holds it up then is what the
// stall names, even after a member, whose update it holds, dies.
TEST(ServerLoopTest, ALeaderThatHasEveryUpdateIsNoLongerSaidToWaitForItsMembers) {
  const protocol::ProtocolRegistration leader_rounds = testing::LeaderRounds::registration();
  ScriptedRun run(community_of_three(asp_stalling_after(2)), {});
  start_round(run);
  run.loop.on_round_progress(0, RoundProgress::kGathering, run.loop.owed_update(0));
  for (int member : {1, 2}) {
    run.loop.on_round_progress(member, RoundProgress::kWithLeader, run.loop.owed_update(member));
  }
  run.loop.on_worker_held_up(0, "server shard 1, which does not answer");
  run.loop.on_worker_gone(2, "", {});
  try {
    run.loop.serve();
    FAIL() << "the run did not stall";
  } catch (const StallError& stall) {
    EXPECT_NE(std::string(stall.what())
                  .find("worker 0 (waiting for its update since 0.0 s, 2.0 s ago; the worker "
                        "itself waits for server shard 1, which does not answer)"),
              std::string::npos)
        << stall.what();
  }
}

}  // namespace
}  // namespace hetps::engine
