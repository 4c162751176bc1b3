// The messages an mpi rank takes from another (src/mpi/wire/, mpi/messages.h): the first byte
// picks the kind, the rest are the message's bytes. Each decoder either returns values a rank of
// the run could have sent, used here as the engine uses them, or refuses the bytes with a
// MessageError; anything else is a finding.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "metrics/activity_timeline.h"
#include "mpi/wire/headers.h"
#include "mpi/wire/message_checks.h"
#include "mpi/wire/message_error.h"
#include "mpi/wire/shard_orders.h"
#include "mpi/wire/state_bytes.h"

namespace hetps::mpi {
namespace {

constexpr MessageBounds kBounds{.workers = 4, .model_floats = 1000};
constexpr int kSender = 3;
constexpr size_t kTimelineIntervals = 64;

// A message's bytes as the elements `take_ids` and `take_doubles` receive.
template <typename T>
std::vector<T> elements_of(std::span<const char> bytes) {
  std::vector<T> elements(elements_in(bytes.size(), sizeof(T), kSender, "fuzzed elements"));
  if (!elements.empty()) std::memcpy(elements.data(), bytes.data(), bytes.size());
  return elements;
}

void reply_header(std::span<const char> bytes) {
  decode_reply_header(bytes, kSender, kBounds).plan({}, {});
}

void relay_entry(std::span<const char> bytes) {
  decode_relay_entry(bytes, kSender, kBounds).header.plan({}, {});
}

void update_header(std::span<const char> bytes) {
  const UpdateHeader header = decode_update_header(bytes, kSender, kBounds);
  header.pushed_bytes(static_cast<int64_t>(kBounds.model_floats * sizeof(float)));
  header.info();
}

// A leader's update: its header, then its members' ids and everyone's step times.
void leader_update(std::span<const char> bytes) {
  if (bytes.size() < sizeof(UpdateHeader)) return;
  const UpdateHeader header =
      decode_update_header(bytes.first(sizeof(UpdateHeader)), kSender, kBounds);
  const std::span<const char> rest = bytes.subspan(sizeof(UpdateHeader));
  const size_t member_bytes = std::min(rest.size(), header.members * sizeof(int));
  const std::vector<int> members = elements_of<int>(rest.first(member_bytes));
  const std::vector<double> seconds = elements_of<double>(rest.subspan(member_bytes));
  check_update_members(header, members, seconds, kSender, kBounds);
  header.info(members, seconds);
}

void clock_state(std::span<const char> bytes) { decode_clock_state(bytes, kSender); }

void progress_report(std::span<const char> bytes) { decode_progress_header(bytes, kSender); }

void shard_order(std::span<const char> bytes) { decode_shard_order(bytes, kSender, kBounds); }

// A worker's timeline goes back to the same numbers, and is ended and written as the server
// rank does (mpi/server_rank.cpp, engine::publish_timeline).
void worker_timeline(std::span<const char> bytes) {
  const std::vector<double> sent = elements_of<double>(bytes);
  metrics::ActivityTimeline timeline(1, kTimelineIntervals);
  try {
    timeline.worker(0) = metrics::WorkerActivity::from_doubles(sent, kTimelineIntervals);
  } catch (const std::invalid_argument& error) {
    throw MessageError(kSender, error.what());
  }
  const std::vector<double> decoded = timeline.worker(0).to_doubles();
  if (metrics::WorkerActivity::from_doubles(decoded, kTimelineIntervals).to_doubles() != decoded) {
    std::abort();
  }
  timeline.end_at(decoded[4] + 1);
  std::ostringstream csv;
  metrics::write_csv(csv, timeline);
}

void sparse_slice(std::span<const char> bytes) {
  const std::vector<uint32_t> indices = elements_of<uint32_t>(bytes);
  check_sparse_slice(indices, indices.size(), {100, 900}, kSender);
}

// A worker's state for a checkpoint, or a resumed worker's part (kWorkerState, kResumeState).
void worker_state(std::span<const char> bytes) { decode_state(bytes, kSender).dump(); }

// A seed's first byte, modulo their count, picks its message: the committed seeds' first bytes
// are below the count, and a new message is appended, so that each seed keeps its message.
constexpr std::array kMessages = {reply_header, relay_entry,    update_header,   leader_update,
                                  clock_state,  shard_order,    worker_timeline, sparse_slice,
                                  worker_state, progress_report};

}  // namespace
}  // namespace hetps::mpi

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto& take = hetps::mpi::kMessages[data[0] % hetps::mpi::kMessages.size()];
  try {
    take({reinterpret_cast<const char*>(data) + 1, size - 1});
  } catch (const hetps::mpi::MessageError&) {
  }
  return 0;
}
