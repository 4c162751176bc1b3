// A checkpoint file's bytes (checkpoint/checkpoint_file.h), and the state inside one restored
// into the run's parts that need no model. The first byte picks how the rest is read: as a whole
// file (header, checksum, CBOR), or as the state alone behind a header made for it, so that the
// fuzzer reaches the CBOR decoding and the restores past the checksum it cannot forge. Each either
// reads the bytes or refuses them with a CheckpointError; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "checkpoint/checkpoint_error.h"
#include "checkpoint/checkpoint_file.h"
#include "engine/stall_inspector.h"
#include "engine/update_pool.h"
#include "metrics/activity_timeline.h"
#include "metrics/run_statistics.h"

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

void restore_parts(const nlohmann::json& state) {
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
    restore_parts(state);
  } catch (const CheckpointError&) {
  }
  return 0;
}
