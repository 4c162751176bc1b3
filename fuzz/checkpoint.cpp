// A checkpoint file's bytes (checkpoint/checkpoint_file.h), and the state inside one restored
// into the run's parts: the server state (protocol, parameter server, pool, statistics) of a
// small run (fuzzed_run.h), and the parts beside it. The first byte's lowest bit picks how the
// rest is read: as a whole file (header, checksum, CBOR), or as the state alone behind a header
// made for it, so that the fuzzer reaches the CBOR decoding and the restores past the checksum it
// cannot forge; its next bits pick the protocol the server state is restored into, so that one
// protocol's state also meets the others' restores. Each either reads the bytes or refuses them
// with a CheckpointError; anything else is a finding, and so is a restored server state that does
// not restore again into a fresh one and save the same bytes, or whose protocol then answers
// the first pulls and a failure with undefined behaviour.
//
// The seeds named after a protocol (`<protocol>-mid-run`) are the state-only form of the "server"
// part of a sim-engine checkpoint halfway through fuzzed_run.h's run of that protocol (the
// tests' softmax learner with 16 inputs, synthetic data, run.checkpoint_interval 0.02); the
// other protocol-named seeds are findings, each such a state with one field changed.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "checkpoint/checkpoint_error.h"
#include "checkpoint/checkpoint_file.h"
#include "engine/server_state.h"
#include "engine/stall_inspector.h"
#include "engine/update_pool.h"
#include "fuzzed_run.h"
#include "metrics/activity_timeline.h"
#include "metrics/run_statistics.h"
#include "protocol/registry.h"

namespace {

using hetps::checkpoint::CheckpointError;

constexpr int kWorkers = 4;
constexpr size_t kModelFloats = 16;
constexpr size_t kTimelineIntervals = 64;

// Restores `part` of `state` into `restore`, where the state has one.
template <typename Restore>
void restore_part(const nlohmann::json& state, const char* part, Restore&& restore) {
  if (!state.is_object() || !state.contains(part)) return;
  try {
    restore(state.at(part));
  } catch (const CheckpointError&) {
  }
}

struct SilentListener : hetps::engine::RunListener {
  void on_eval(const hetps::metrics::EvalRecord&) override {}
  void on_event(const nlohmann::json&) override {}
};

// The fuzzed run of each protocol, in the registry's order.
const std::vector<hetps::config::Config>& fuzzed_configs() {
  static const std::vector<hetps::config::Config> configs = [] {
    std::vector<hetps::config::Config> made;
    for (const auto& info : hetps::protocol::all_protocols()) {
      made.push_back(hetps::fuzzing::fuzzed_config(info.name));
    }
    return made;
  }();
  return configs;
}

// The server state's bytes as a checkpoint file holds them.
std::string checkpoint_bytes(const hetps::engine::ServerState& state) {
  return hetps::checkpoint::encode_checkpoint(state.save_state());
}

// What the engine does with the protocol's decisions, as ServerStateDriver in the tests.
class ServerActions : public hetps::protocol::Actions {
 public:
  explicit ServerActions(hetps::engine::ServerState& state) : state_(state) {}
  int64_t apply(const hetps::protocol::ApplyOrder& order) override { return state_.apply(order); }
  void reply_pull(int, const hetps::protocol::WorkerPlan&) override {}
  void discard(int update_id) override { state_.discard(update_id); }
  void set_optimizer(const hetps::protocol::OptimizerOverride& settings) override {
    state_.set_optimizer(settings);
  }
  void record(const hetps::protocol::ProtocolEvent&) override {}
  int64_t version() const override { return state_.server().version(); }

 private:
  hetps::engine::ServerState& state_;
};

// The events a resumed run sends first: every worker's pull, a failure, the pulls again. The
// restore checks what they index by; a protocol or the server may still refuse an event (an
// exception ends the run cleanly), but never read or write out of bounds.
void send_first_events(hetps::engine::ServerState& state, int workers) {
  ServerActions actions(state);
  try {
    for (int w = 0; w < workers; ++w) state.protocol().on_pull_request(w, actions);
    state.protocol().on_worker_failed(1, actions);
    for (int w = 0; w < workers; ++w) state.protocol().on_pull_request(w, actions);
  } catch (const std::exception&) {
  }
}

void restore_server_state(const nlohmann::json& saved, const hetps::config::Config& config) {
  static const hetps::data::DataSplit no_data;
  static hetps::fuzzing::FuzzedLearner learner;
  static SilentListener listener;
  hetps::engine::ServerState restored(config, no_data, learner, listener);
  restored.restore_state(saved);
  const std::string bytes = checkpoint_bytes(restored);
  hetps::engine::ServerState again(config, no_data, learner, listener);
  try {
    again.restore_state(hetps::checkpoint::decode_checkpoint(bytes, "the restored state"));
  } catch (const CheckpointError& error) {
    std::fprintf(stderr, "a restored server state does not restore again: %s\n", error.what());
    std::abort();
  }
  if (checkpoint_bytes(again) != bytes) {
    std::fprintf(stderr, "a restored server state saves other bytes once restored again\n");
    std::abort();
  }
  send_first_events(restored, config.cluster.workers);
}

void restore_parts(const nlohmann::json& state, const hetps::config::Config& config) {
  restore_part(state, "server",
               [&](const nlohmann::json& saved) { restore_server_state(saved, config); });
  restore_part(state, "statistics", [](const nlohmann::json& saved) {
    hetps::metrics::RunStatistics statistics;
    statistics.restore_state(saved);
  });
  restore_part(state, "pool", [](const nlohmann::json& saved) {
    hetps::engine::UpdatePool pool(kModelFloats);
    pool.restore_state(saved);
    // Restored ids must be usable as the engines use them.
    const int fresh = pool.acquire();
    if (pool.buffer(fresh).size() != kModelFloats) std::abort();
  });
  restore_part(state, "timeline", [](const nlohmann::json& saved) {
    hetps::metrics::ActivityTimeline timeline(kWorkers, kTimelineIntervals);
    timeline.restore_state(saved);
    for (int w = 0; w < kWorkers; ++w) {
      if (timeline.worker(w).intervals().size() > kTimelineIntervals) std::abort();
    }
  });
  restore_part(state, "stall_inspector", [](const nlohmann::json& saved) {
    hetps::engine::StallInspector inspector(1.0, 2.0, [](int w) { return std::to_string(w); });
    inspector.restore_state(saved);
    inspector.check(inspector.next_check());
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    const nlohmann::json state = data[0] % 2 == 0
                                     ? hetps::checkpoint::decode_checkpoint(rest, "fuzz")
                                     : hetps::checkpoint::decode_checkpoint(
                                           hetps::checkpoint::frame_checkpoint(rest), "fuzz");
    const auto& configs = fuzzed_configs();
    restore_parts(state, configs[(data[0] >> 1) % configs.size()]);
  } catch (const CheckpointError&) {
  }
  return 0;
}
