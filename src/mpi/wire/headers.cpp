#include "mpi/wire/headers.h"

#include <cmath>
#include <cstring>
#include <string_view>
#include <type_traits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "mpi/wire/message_checks.h"
#include "mpi/wire/message_error.h"
#include "worker/top_k.h"

namespace hetps::mpi {
namespace {

// The checks of one header's values, each naming the field, the value and what is allowed.
class FieldCheck {
 public:
  FieldCheck(int sender, std::string_view header) : sender_(sender), header_(header) {}

  template <typename Value>
  [[noreturn]] void fail(std::string_view field, Value value, std::string_view expected) const {
    throw MessageError(
        sender_, fmt::format("{} with {} = {}, expected {}", header_, field, value, expected));
  }
  template <typename Value>
  void expect(bool allowed, std::string_view field, Value value, std::string_view expected) const {
    if (!allowed) fail(field, value, expected);
  }
  void expect_finite(double value, std::string_view field) const {
    expect(std::isfinite(value), field, value, "a finite number");
  }
  void expect_update_kind(protocol::UpdateKind kind) const {
    expect(kind == protocol::UpdateKind::Gradient || kind == protocol::UpdateKind::Delta, "kind",
           static_cast<int>(kind), "0 (gradient) or 1 (delta)");
  }
  void expect_worker(int id, std::string_view field, int workers) const {
    if (id < 0 || id >= workers) fail(field, id, fmt::format("a worker id 0 to {}", workers - 1));
  }
  void expect_workers(int count, std::string_view field, int workers) const {
    if (count < 0 || count >= workers) {
      fail(field, count, fmt::format("0 to {} (the other workers)", workers - 1));
    }
  }

 private:
  int sender_;
  std::string_view header_;
};

template <typename Header>
Header header_from(std::span<const char> bytes, int sender, std::string_view name) {
  static_assert(std::is_trivially_copyable_v<Header>);
  if (bytes.size() != sizeof(Header)) {
    throw MessageError(
        sender, fmt::format("{} of {} bytes, expected {}", name, bytes.size(), sizeof(Header)));
  }
  Header header;
  std::memcpy(&header, bytes.data(), sizeof(Header));
  return header;
}

void check_reply(const ReplyHeader& header, const FieldCheck& check, const MessageBounds& bounds) {
  check.expect_update_kind(header.kind);
  check.expect(header.max_local_steps >= 1, "max_local_steps", header.max_local_steps, "1 or more");
  check.expect(std::isfinite(header.change_threshold) && header.change_threshold >= 0,
               "change_threshold", header.change_threshold, "a finite number >= 0");
  check.expect(header.keep_ratio > 0 && header.keep_ratio <= 1, "keep_ratio", header.keep_ratio,
               "a number in (0, 1]");
  check.expect(header.error_feedback == 0 || header.error_feedback == 1, "error_feedback",
               header.error_feedback, "0 or 1");
  if (header.send_to != protocol::kServer) {
    check.expect_worker(header.send_to, "send_to", bounds.workers);
  }
  check.expect_workers(header.members, "members", bounds.workers);
  check.expect_workers(header.relays, "relays", bounds.workers);
  if (header.data_shares != 0 && header.data_shares != bounds.workers) {
    check.fail("data_shares", header.data_shares,
               fmt::format("0 or {} (one per worker)", bounds.workers));
  }
  check.expect(header.version >= 0, "version", header.version, "0 or more");
  check.expect(header.update_id >= 0, "update_id", header.update_id, "0 or more");
  check.expect(std::isfinite(header.lr) && header.lr >= 0, "lr", header.lr, "a finite number >= 0");
}

}  // namespace

protocol::WorkerPlan ReplyHeader::plan(std::vector<int> gather_from,
                                       std::vector<double> data_shares) const {
  protocol::WorkerPlan plan;
  plan.kind = kind;
  plan.max_local_steps = max_local_steps;
  plan.change_threshold = change_threshold;
  plan.keep_ratio = keep_ratio;
  plan.error_feedback = error_feedback != 0;
  plan.send_to = send_to;
  plan.gather_from = std::move(gather_from);
  plan.data_shares = std::move(data_shares);
  return plan;
}

UpdateHeader UpdateHeader::of(const protocol::UpdateInfo& info) {
  return {info.id,
          info.worker,
          info.kind,
          info.base_version,
          info.clock,
          info.steps,
          info.samples,
          info.train_loss,
          info.compute_seconds,
          info.comm_seconds,
          info.push_seconds,
          info.pull_seconds,
          static_cast<int>(info.members.size()),
          kDense};
}

int64_t UpdateHeader::pushed_bytes(int64_t model_bytes) const {
  return compressed() ? kept_entries * worker::SparseDelta::kBytesPerEntry : model_bytes;
}

protocol::UpdateInfo UpdateHeader::info(std::vector<int> merged_members,
                                        std::vector<double> merged_step_seconds) const {
  protocol::UpdateInfo info;
  info.id = id;
  info.worker = worker;
  info.kind = kind;
  info.base_version = base_version;
  info.clock = clock;
  info.steps = steps;
  info.samples = samples;
  info.train_loss = train_loss;
  info.compute_seconds = compute_seconds;
  info.comm_seconds = comm_seconds;
  info.push_seconds = push_seconds;
  info.pull_seconds = pull_seconds;
  info.members = std::move(merged_members);
  info.merged_step_seconds = std::move(merged_step_seconds);
  return info;
}

ReplyHeader decode_reply_header(std::span<const char> bytes, int sender,
                                const MessageBounds& bounds) {
  const auto header = header_from<ReplyHeader>(bytes, sender, "a reply header");
  check_reply(header, FieldCheck(sender, "a reply header"), bounds);
  return header;
}

RelayEntry decode_relay_entry(std::span<const char> bytes, int sender,
                              const MessageBounds& bounds) {
  const auto entry = header_from<RelayEntry>(bytes, sender, "a relay entry");
  const FieldCheck check(sender, "a relay entry");
  check.expect_worker(entry.worker, "worker", bounds.workers);
  check_reply(entry.header, check, bounds);
  return entry;
}

UpdateHeader decode_update_header(std::span<const char> bytes, int sender,
                                  const MessageBounds& bounds) {
  const auto header = header_from<UpdateHeader>(bytes, sender, "an update header");
  const FieldCheck check(sender, "an update header");
  check.expect(header.id >= 0, "id", header.id, "0 or more");
  check.expect_worker(header.worker, "worker", bounds.workers);
  check.expect_update_kind(header.kind);
  check.expect(header.base_version >= 0, "base_version", header.base_version, "0 or more");
  check.expect(header.clock >= 0, "clock", header.clock, "0 or more");
  check.expect(header.steps >= 0, "steps", header.steps, "0 or more");
  check.expect(header.samples >= 0, "samples", header.samples, "0 or more");
  // The loss is not checked: a diverging run's is not finite, and the server only logs it.
  check.expect_finite(header.compute_seconds, "compute_seconds");
  check.expect_finite(header.comm_seconds, "comm_seconds");
  check.expect_finite(header.push_seconds, "push_seconds");
  check.expect_finite(header.pull_seconds, "pull_seconds");
  check.expect_workers(header.members, "members", bounds.workers);
  if (header.kept_entries != UpdateHeader::kDense &&
      (header.kept_entries < 0 ||
       static_cast<uint64_t>(header.kept_entries) > bounds.model_floats)) {
    check.fail("kept_entries", header.kept_entries,
               fmt::format("-1 (dense) or 0 to {} (the model's size)", bounds.model_floats));
  }
  return header;
}

ClockState decode_clock_state(std::span<const char> bytes, int sender) {
  // A bool may only be read once it holds 0 or 1.
  static_assert(sizeof(bool) == 1);
  constexpr size_t kStanding = offsetof(ClockState, standing);
  const FieldCheck check(sender, "a clock state");
  if (bytes.size() == sizeof(ClockState)) {
    const auto standing = static_cast<unsigned char>(bytes[kStanding]);
    check.expect(standing <= 1, "standing", standing, "0 or 1");
  }
  const auto state = header_from<ClockState>(bytes, sender, "a clock state");
  check.expect_finite(state.stands_at, "stands_at");
  check.expect(std::isfinite(state.paused_seconds) && state.paused_seconds >= 0, "paused_seconds",
               state.paused_seconds, "a finite number >= 0");
  return state;
}

ProgressHeader decode_progress_header(std::span<const char> bytes, int sender) {
  const auto header = header_from<ProgressHeader>(bytes, sender, "a progress report");
  const FieldCheck check(sender, "a progress report");
  const auto progress = static_cast<int>(header.progress);
  check.expect(header.progress == engine::RoundProgress::kWithLeader ||
                   header.progress == engine::RoundProgress::kGathering,
               "progress", progress, "0 (with its leader) or 1 (gathering)");
  check.expect(header.update_id >= 0, "update_id", header.update_id, "0 or more");
  return header;
}

void check_update_members(const UpdateHeader& header, std::span<const int> members,
                          std::span<const double> step_seconds, int sender,
                          const MessageBounds& bounds) {
  constexpr std::string_view kMembers = "the members of an update";
  check_length(members.size(), static_cast<size_t>(header.members), sender, kMembers);
  check_worker_ids(members, bounds.workers, sender, kMembers);
  for (size_t k = 0; k < members.size(); ++k) {
    if (members[k] == header.worker || (k > 0 && members[k] <= members[k - 1])) {
      throw MessageError(sender, fmt::format("{} of worker {}: {}, expected other workers' "
                                             "ids, ascending",
                                             kMembers, header.worker, fmt::join(members, ", ")));
    }
  }
  constexpr std::string_view kStepTimes = "the step times of an update";
  check_length(step_seconds.size(), members.size() + 1, sender, kStepTimes);
  for (const double seconds : step_seconds) {
    if (!std::isfinite(seconds)) {
      throw MessageError(
          sender, fmt::format("{} holding {}, expected finite numbers", kStepTimes, seconds));
    }
  }
}

}  // namespace hetps::mpi
