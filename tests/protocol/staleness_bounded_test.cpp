#include <algorithm>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "protocol/registry.h"
#include "protocol/staleness_bounded.h"
#include "support/protocol_driving.h"
#include "support/recording_actions.h"

namespace hetps::protocol {
namespace {

using testing::push;
using testing::RecordingActions;
using testing::update_from;

// What the driver saw, counted from the outside: a step starts when a pull is answered.
struct StepCounts {
  std::vector<int64_t> started;
  std::vector<int64_t> pushed;
};

// Drives a protocol like an engine with random worker speeds: at each event one computing
// worker (chosen at random, fast workers more often) pushes and asks for its next pull.
// `check` runs after every event. Returns the number of pulls that had to wait.
template <typename Check>
int drive_randomly(Protocol& protocol, int workers, int events, uint64_t seed, Check check,
                   int fail_worker_at = -1) {
  RecordingActions actions;
  protocol.start(RunShape{workers, 0, 1}, actions);
  std::vector<bool> computing(workers, false);
  StepCounts counts{std::vector<int64_t>(workers, 0), std::vector<int64_t>(workers, 0)};
  bool failed = false;
  auto start_steps = [&] {
    for (int w : actions.take_replied_workers()) {
      EXPECT_FALSE(computing[w]) << "worker " << w << " answered while computing";
      EXPECT_FALSE(failed && w == workers - 1) << "the dead worker " << w << " was answered";
      computing[w] = true;
      ++counts.started[w];
    }
  };
  for (int w = 0; w < workers; ++w) protocol.on_pull_request(w, actions);
  start_steps();
  std::mt19937_64 rng(seed);
  int held = 0;
  int next_id = 0;
  for (int event = 0; event < events; ++event) {
    if (event == fail_worker_at) {
      failed = true;
      computing[workers - 1] = false;
      protocol.on_worker_failed(workers - 1, actions);
      start_steps();
    }
    std::vector<int> candidates;
    for (int w = 0; w < workers; ++w) {
      // Worker w is w+1 times slower than worker 0: it gets 1/(w+1) of the chances.
      if (computing[w] && rng() % static_cast<uint64_t>(w + 1) == 0) candidates.push_back(w);
    }
    if (candidates.empty()) continue;
    int worker = candidates[rng() % candidates.size()];
    computing[worker] = false;
    ++counts.pushed[worker];
    protocol.on_update(update_from(worker, next_id++), actions);
    protocol.on_pull_request(worker, actions);
    start_steps();
    if (!computing[worker]) ++held;
    check(counts);
    bool anyone_computing = false;
    for (bool c : computing) anyone_computing |= c;
    EXPECT_TRUE(anyone_computing) << "deadlock at event " << event;
    if (!anyone_computing) break;
  }
  return held;
}

// The widest gap between steps started by one worker and pushed by another while `ssp` runs
// on five uneven workers; each gap is checked against `s` + 1 as it happens.
int64_t widest_gap(Protocol& ssp, int64_t s) {
  const int workers = 5;
  int64_t widest = 0;
  int held = drive_randomly(ssp, workers, 4000, 42 + s, [&](const StepCounts& seen) {
    for (int i = 0; i < workers; ++i) {
      for (int j = 0; j < workers; ++j) {
        int64_t gap = seen.started[i] - seen.pushed[j];
        widest = std::max(widest, gap);
        ASSERT_LE(gap, s + 1) << "s=" << s << " worker " << i << " vs " << j;
      }
    }
  });
  EXPECT_GT(held, 0) << "with workers this uneven, some pulls must wait";
  return widest;
}

// Through the registry, as a run makes it from protocol.staleness.
TEST(SspTest, StartedExceedsPushedByAtMostSPlusOne) {
  for (int64_t s : {0, 1, 3, 8}) {
    auto ssp = testing::make_protocol("ssp", {{"staleness", static_cast<double>(s)}});
    EXPECT_EQ(widest_gap(*ssp, s), s + 1)
        << "s=" << s << ": the bound should be reached with workers this uneven";
  }
}

TEST(SspTest, TheDefaultBoundIsThree) {
  auto ssp = testing::make_protocol("ssp");
  EXPECT_EQ(widest_gap(*ssp, 3), 4);
}

// s = 0: worker 0's next pull waits for the others' first pushes; it dies meanwhile, and its
// pull is forgotten, not answered once they push.
TEST(SspTest, ADeadWorkersHeldPullIsNeverAnswered) {
  StalenessBounded ssp("ssp", 0);
  RecordingActions actions;
  ssp.start(RunShape{3, 0, 1}, actions);
  for (int w = 0; w < 3; ++w) ssp.on_pull_request(w, actions);
  actions.take_replied_workers();
  ssp.on_update(update_from(0, 0), actions);
  ssp.on_pull_request(0, actions);
  ASSERT_TRUE(actions.take_replied_workers().empty()) << "worker 0 must wait";
  ssp.on_worker_failed(0, actions);
  for (int w = 1; w < 3; ++w) {
    ssp.on_update(update_from(w, w), actions);
    ssp.on_pull_request(w, actions);
  }
  std::vector<int> answered = actions.take_replied_workers();
  std::ranges::sort(answered);
  EXPECT_EQ(answered, (std::vector<int>{1, 2}));
}

// s = 0: workers 0 and 1 wait for worker 2's first push; its death lets both go at once.
TEST(SspTest, ALaggardsDeathReleasesTheHeldPulls) {
  StalenessBounded ssp("ssp", 0);
  RecordingActions actions;
  ssp.start(RunShape{3, 0, 1}, actions);
  for (int w = 0; w < 3; ++w) ssp.on_pull_request(w, actions);
  actions.take_replied_workers();
  for (int w = 0; w < 2; ++w) push(ssp, actions, update_from(w, w));
  ASSERT_TRUE(actions.take_replied_workers().empty()) << "workers 0 and 1 must wait";
  ssp.on_worker_failed(2, actions);
  std::vector<int> answered = actions.take_replied_workers();
  std::ranges::sort(answered);
  EXPECT_EQ(answered, (std::vector<int>{0, 1}));
}

// A dead worker's update that was on its way when it died is dropped, not applied.
TEST(SspTest, ADeadWorkersUpdateIsDiscarded) {
  for (const int64_t s : {int64_t{2}, kUnbounded}) {
    StalenessBounded protocol(s == kUnbounded ? "asp" : "ssp", s);
    RecordingActions actions;
    protocol.start(RunShape{2, 0, 1}, actions);
    for (int w = 0; w < 2; ++w) protocol.on_pull_request(w, actions);
    protocol.on_worker_failed(1, actions);
    protocol.on_update(update_from(1, 9), actions);
    EXPECT_EQ(actions.discarded, (std::vector<int>{9})) << "s=" << s;
    EXPECT_TRUE(actions.applied.empty()) << "s=" << s;
  }
}

TEST(SspTest, DeadWorkerNoLongerHoldsTheOthers) {
  StalenessBounded ssp("ssp", 2);
  const int workers = 4;
  int64_t pushes_after_failure = 0;
  drive_randomly(
      ssp, workers, 3000, 7,
      [&](const StepCounts& seen) {
        for (int i = 0; i < workers - 1; ++i) {
          for (int j = 0; j < workers - 1; ++j) ASSERT_LE(seen.started[i] - seen.pushed[j], 3);
        }
        pushes_after_failure = seen.pushed[0];
      },
      /*fail_worker_at=*/100);
  // Worker 0 keeps going long after the last worker died with only ~25 pushes.
  EXPECT_GT(pushes_after_failure, 500);
}

TEST(AspTest, NeverWaits) {
  auto asp = testing::make_protocol("asp");
  int held = drive_randomly(*asp, 6, 3000, 3, [](const StepCounts&) {});
  EXPECT_EQ(held, 0);
}

TEST(AspTest, AppliesEachGradientAloneOnArrival) {
  StalenessBounded asp("asp", kUnbounded);
  RecordingActions actions;
  asp.start(RunShape{2, 0, 1}, actions);
  asp.on_pull_request(0, actions);
  asp.on_update(update_from(0, 4), actions);
  ASSERT_EQ(actions.applied.size(), 1u);
  EXPECT_EQ(actions.applied[0].update_ids, (std::vector<int>{4}));
  EXPECT_EQ(actions.applied[0].weights, (std::vector<double>{1.0}));
  EXPECT_EQ(actions.applied[0].kind, UpdateKind::Gradient);
}

TEST(SspTest, StateRoundTrips) {
  StalenessBounded ssp("ssp", 1);
  RecordingActions actions;
  ssp.start(RunShape{2, 0, 1}, actions);
  for (int i = 0; i < 3; ++i) {
    ssp.on_pull_request(0, actions);
    ssp.on_update(update_from(0, i), actions);
  }
  ssp.on_pull_request(0, actions);  // held: worker 1 has pushed nothing
  StalenessBounded copy("ssp", 1);
  copy.restore_state(ssp.save_state());
  RecordingActions after;
  copy.on_pull_request(1, after);
  copy.on_update(update_from(1, 9), after);
  EXPECT_EQ(after.take_replied_workers(), (std::vector<int>{1, 0}));
}

TEST(SspTest, RefusesASavedStateWhoseWorkersDoNotFit) {
  StalenessBounded ssp("ssp", 1);
  RecordingActions actions;
  ssp.start(RunShape{2, 0, 1}, actions);
  const nlohmann::json saved = ssp.save_state();
  StalenessBounded three("ssp", 1);
  three.start(RunShape{3, 0, 1}, actions);
  EXPECT_THROW(three.restore_state(saved), std::invalid_argument);
  nlohmann::json beyond = saved;
  beyond["live"] = {0, 2};  // indexed the counts of two workers out of bounds
  StalenessBounded copy("ssp", 1);
  try {
    copy.restore_state(beyond);
    ADD_FAILURE() << "restored worker 2 of 2";
  } catch (const std::invalid_argument& refused) {
    EXPECT_STREQ(refused.what(),
                 "ssp: the saved state names worker 2 among its live workers or held pulls; "
                 "expected ids below its 2 workers");
  }
  EXPECT_EQ(copy.save_state(), StalenessBounded("ssp", 1).save_state()) << "left untouched";
  nlohmann::json negative = saved;
  negative["started"][1] = std::numeric_limits<int64_t>::min();  // overflowed the bound's sum
  EXPECT_THROW(copy.restore_state(negative), std::invalid_argument);
}

TEST(ProtocolRegistryTest, RejectsUnknownAndOutOfRangeParameters) {
  const ProtocolInfo* ssp = find_protocol("ssp");
  ASSERT_NE(ssp, nullptr);
  try {
    complete_params(*ssp, {{"stalenes", 2.0}});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "protocol.stalenes: protocol 'ssp' has no parameter 'stalenes' (its parameters: "
                 "staleness)");
  }
  try {
    complete_params(*ssp, {{"staleness", -1.0}});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "protocol.staleness: expected an integer in [0, 1000000], got -1");
  }
  try {
    complete_params(*ssp, {{"staleness", 2.5}});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "protocol.staleness: expected an integer, got 2.5");
  }
  EXPECT_EQ(find_protocol("nope"), nullptr);
  // The built-in protocols first; a test's own may follow (register_protocol).
  EXPECT_EQ(protocol_names().rfind("bsp, asp, ssp, local_sgd, sync_switch", 0), 0u)
      << protocol_names();
}

}  // namespace
}  // namespace hetps::protocol
