// The headers the mpi engine's ranks send each other come back as they were sent, and bytes no
// rank of the run sends are refused naming the sender, before anything of them is used.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "mpi/wire/headers.h"
#include "mpi/wire/message_error.h"

namespace hetps::mpi {
namespace {

using ::testing::HasSubstr;

constexpr MessageBounds kHeaderBounds{.workers = 4, .model_floats = 100};
constexpr int kHeaderSender = 5;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <typename Header>
std::vector<char> bytes_of(const Header& header) {
  std::vector<char> bytes(sizeof(Header));
  std::memcpy(bytes.data(), &header, sizeof(Header));
  return bytes;
}

// The message of the MessageError that decoding raises; "" when none.
template <typename Decode>
std::string refusal(Decode decode) {
  try {
    decode();
  } catch (const MessageError& error) {
    EXPECT_EQ(error.sender(), kHeaderSender);
    return error.what();
  }
  return "";
}

ReplyHeader leader_reply() {
  ReplyHeader header;
  header.kind = protocol::UpdateKind::Delta;
  header.max_local_steps = 8;
  header.change_threshold = 0.01;
  header.keep_ratio = 0.25;
  header.error_feedback = 0;
  header.send_to = 2;
  header.members = 3;
  header.relays = 3;
  header.data_shares = 4;
  header.version = 17;
  header.update_id = 9;
  header.lr = 0.05;
  return header;
}

TEST(HeadersTest, AReplyHeaderComesBackAsItWasSent) {
  const ReplyHeader sent = leader_reply();
  const ReplyHeader back = decode_reply_header(bytes_of(sent), kHeaderSender, kHeaderBounds);
  EXPECT_EQ(back.plan({0, 1, 3}, {0.25, 0.25, 0.25, 0.25}),
            sent.plan({0, 1, 3}, {0.25, 0.25, 0.25, 0.25}));
  EXPECT_EQ(back.members, 3);
  EXPECT_EQ(back.relays, 3);
  EXPECT_EQ(back.data_shares, 4);
  EXPECT_EQ(back.version, 17);
  EXPECT_EQ(back.update_id, 9);
  EXPECT_EQ(back.lr, 0.05);
}

TEST(HeadersTest, AHeaderOfAnotherLengthIsRefused) {
  const std::vector<char> bytes = bytes_of(leader_reply());
  EXPECT_EQ(refusal([&] {
              decode_reply_header(std::span(bytes).first(bytes.size() - 1), kHeaderSender,
                                  kHeaderBounds);
            }),
            fmt::format("rank 5 sent a reply header of {} bytes, expected {}", bytes.size() - 1,
                        bytes.size()));
  std::vector<char> longer = bytes;
  longer.push_back(0);
  EXPECT_THAT(refusal([&] { decode_reply_header(longer, kHeaderSender, kHeaderBounds); }),
              HasSubstr("a reply header of"));
  EXPECT_THAT(refusal([] { decode_update_header({}, kHeaderSender, kHeaderBounds); }),
              HasSubstr("rank 5 sent an update header of 0 bytes"));
  EXPECT_THAT(refusal([] { decode_relay_entry({}, kHeaderSender, kHeaderBounds); }),
              HasSubstr("rank 5 sent a relay entry of 0 bytes"));
  EXPECT_THAT(refusal([] { decode_clock_state({}, kHeaderSender); }),
              HasSubstr("rank 5 sent a clock state of 0 bytes"));
}

TEST(HeadersTest, AReplyNoServerSendsIsRefused) {
  const auto refused = [](auto change) {
    ReplyHeader header = leader_reply();
    change(header);
    return refusal([&] { decode_reply_header(bytes_of(header), kHeaderSender, kHeaderBounds); });
  };
  EXPECT_EQ(refused([](ReplyHeader& h) { h.kind = static_cast<protocol::UpdateKind>(7); }),
            "rank 5 sent a reply header with kind = 7, expected 0 (gradient) or 1 (delta)");
  EXPECT_THAT(refused([](ReplyHeader& h) { h.max_local_steps = 0; }),
              HasSubstr("max_local_steps = 0"));
  EXPECT_THAT(refused([](ReplyHeader& h) { h.change_threshold = kNaN; }),
              HasSubstr("change_threshold = nan"));
  EXPECT_THAT(refused([](ReplyHeader& h) { h.keep_ratio = 0; }), HasSubstr("keep_ratio = 0"));
  EXPECT_THAT(refused([](ReplyHeader& h) { h.error_feedback = 2; }),
              HasSubstr("error_feedback = 2"));
  EXPECT_THAT(refused([](ReplyHeader& h) { h.send_to = 4; }),
              HasSubstr("send_to = 4, expected a worker id 0 to 3"));
  EXPECT_THAT(refused([](ReplyHeader& h) { h.members = 4; }),
              HasSubstr("members = 4, expected 0 to 3 (the other workers)"));
  EXPECT_THAT(refused([](ReplyHeader& h) { h.relays = -1; }), HasSubstr("relays = -1"));
  EXPECT_THAT(refused([](ReplyHeader& h) { h.data_shares = 3; }),
              HasSubstr("data_shares = 3, expected 0 or 4 (one per worker)"));
  EXPECT_THAT(refused([](ReplyHeader& h) { h.version = -1; }), HasSubstr("version = -1"));
  EXPECT_THAT(refused([](ReplyHeader& h) { h.lr = -0.1; }), HasSubstr("lr = -0.1"));
  EXPECT_EQ(refused([](ReplyHeader& h) { h.send_to = protocol::kServer; }), "");
}

TEST(HeadersTest, ARelayEntryNamesAWorkerOfTheRun) {
  const RelayEntry sent{3, leader_reply()};
  EXPECT_EQ(decode_relay_entry(bytes_of(sent), kHeaderSender, kHeaderBounds).worker, 3);
  EXPECT_EQ(refusal([] {
              decode_relay_entry(bytes_of(RelayEntry{-1, {}}), kHeaderSender, kHeaderBounds);
            }),
            "rank 5 sent a relay entry with worker = -1, expected a worker id 0 to 3");
  RelayEntry bad_plan{1, leader_reply()};
  bad_plan.header.keep_ratio = 2;
  EXPECT_THAT(
      refusal([&] { decode_relay_entry(bytes_of(bad_plan), kHeaderSender, kHeaderBounds); }),
      HasSubstr("a relay entry with keep_ratio = 2"));
}

protocol::UpdateInfo leader_update() {
  protocol::UpdateInfo info;
  info.id = 12;
  info.worker = 1;
  info.kind = protocol::UpdateKind::Delta;
  info.base_version = 40;
  info.clock = 6;
  info.steps = 4;
  info.samples = 256;
  info.train_loss = 0.7;
  info.compute_seconds = 0.4;
  info.comm_seconds = 0.05;
  info.push_seconds = 0.02;
  info.pull_seconds = 0.03;
  info.members = {0, 3};
  info.merged_step_seconds = {0.1, 0.09, 0.12};
  return info;
}

TEST(HeadersTest, AnUpdateHeaderComesBackAsItWasSent) {
  const protocol::UpdateInfo sent = leader_update();
  const UpdateHeader back =
      decode_update_header(bytes_of(UpdateHeader::of(sent)), kHeaderSender, kHeaderBounds);
  const protocol::UpdateInfo info = back.info(sent.members, sent.merged_step_seconds);
  EXPECT_EQ(info.id, 12);
  EXPECT_EQ(info.worker, 1);
  EXPECT_EQ(info.kind, protocol::UpdateKind::Delta);
  EXPECT_EQ(info.base_version, 40);
  EXPECT_EQ(info.clock, 6);
  EXPECT_EQ(info.steps, 4);
  EXPECT_EQ(info.samples, 256);
  EXPECT_EQ(info.train_loss, 0.7);
  EXPECT_EQ(info.compute_seconds, 0.4);
  EXPECT_EQ(info.comm_seconds, 0.05);
  EXPECT_EQ(info.push_seconds, 0.02);
  EXPECT_EQ(info.pull_seconds, 0.03);
  EXPECT_EQ(back.members, 2);
  EXPECT_FALSE(back.compressed());
  EXPECT_NO_THROW(check_update_members(back, sent.members, sent.merged_step_seconds, kHeaderSender,
                                       kHeaderBounds));
}

TEST(HeadersTest, AnUpdateNoWorkerSendsIsRefused) {
  const auto refused = [](auto change) {
    UpdateHeader header = UpdateHeader::of(leader_update());
    change(header);
    return refusal([&] { decode_update_header(bytes_of(header), kHeaderSender, kHeaderBounds); });
  };
  EXPECT_THAT(refused([](UpdateHeader& h) { h.id = -2; }), HasSubstr("id = -2"));
  EXPECT_THAT(refused([](UpdateHeader& h) { h.worker = 4; }), HasSubstr("worker = 4"));
  EXPECT_THAT(refused([](UpdateHeader& h) { h.kind = static_cast<protocol::UpdateKind>(-1); }),
              HasSubstr("kind = -1"));
  EXPECT_THAT(refused([](UpdateHeader& h) { h.base_version = -1; }),
              HasSubstr("base_version = -1"));
  EXPECT_THAT(refused([](UpdateHeader& h) { h.samples = -256; }), HasSubstr("samples = -256"));
  EXPECT_THAT(refused([](UpdateHeader& h) { h.compute_seconds = kNaN; }),
              HasSubstr("compute_seconds = nan, expected a finite number"));
  EXPECT_THAT(refused([](UpdateHeader& h) { h.members = 7; }), HasSubstr("members = 7"));
  // A compressed push's entries count bytes on the wire: never more than the model's keys.
  EXPECT_EQ(refused([](UpdateHeader& h) { h.kept_entries = 101; }),
            "rank 5 sent an update header with kept_entries = 101, expected -1 (dense) or 0 to "
            "100 (the model's size)");
  EXPECT_THAT(
      refused([](UpdateHeader& h) { h.kept_entries = std::numeric_limits<int64_t>::max(); }),
      HasSubstr("kept_entries = 9223372036854775807"));
  EXPECT_EQ(refused([](UpdateHeader& h) { h.kept_entries = 100; }), "");
  // A diverging run's loss is not finite: logged, not refused.
  EXPECT_EQ(refused([](UpdateHeader& h) { h.train_loss = kNaN; }), "");
}

TEST(HeadersTest, ALeadersMembersAndStepTimesMatchItsHeader) {
  const UpdateHeader header = UpdateHeader::of(leader_update());  // worker 1, members 0 and 3
  const auto refused = [&](std::vector<int> members, std::vector<double> seconds) {
    return refusal(
        [&] { check_update_members(header, members, seconds, kHeaderSender, kHeaderBounds); });
  };
  EXPECT_EQ(refused({0}, {0.1, 0.2}),
            "rank 5 sent the members of an update as 1 elements, "
            "expected 2");
  EXPECT_THAT(refused({0, 4}, {0.1, 0.2, 0.3}), HasSubstr("naming worker 4"));
  EXPECT_THAT(refused({3, 0}, {0.1, 0.2, 0.3}),
              HasSubstr("the members of an update of worker 1: 3, 0, expected other workers' "
                        "ids, ascending"));
  EXPECT_THAT(refused({0, 1}, {0.1, 0.2, 0.3}), HasSubstr("of worker 1: 0, 1"));
  EXPECT_THAT(refused({0, 0}, {0.1, 0.2, 0.3}), HasSubstr("0, 0"));
  EXPECT_THAT(refused({0, 3}, {0.1, 0.2}),
              HasSubstr("the step times of an update as 2 elements, expected 3"));
  EXPECT_THAT(refused({0, 3}, {0.1, kNaN, 0.2}), HasSubstr("holding nan"));
}

TEST(HeadersTest, AClockStateComesBackAndABoolThatIsNotOneIsRefused) {
  const ClockState sent{true, 12.5, 3.25};
  const ClockState back = decode_clock_state(bytes_of(sent), kHeaderSender);
  EXPECT_TRUE(back.standing);
  EXPECT_EQ(back.stands_at, 12.5);
  EXPECT_EQ(back.paused_seconds, 3.25);
  // Reading a bool that holds neither 0 nor 1 is undefined: the byte is checked first.
  std::vector<char> bytes = bytes_of(sent);
  bytes[offsetof(ClockState, standing)] = 2;
  EXPECT_EQ(refusal([&] { decode_clock_state(bytes, kHeaderSender); }),
            "rank 5 sent a clock state with standing = 2, expected 0 or 1");
  EXPECT_THAT(refusal([] {
                decode_clock_state(bytes_of(ClockState{false, kNaN, 0}), kHeaderSender);
              }),
              HasSubstr("stands_at = nan"));
  EXPECT_THAT(refusal([] {
                decode_clock_state(bytes_of(ClockState{false, 1, -1}), kHeaderSender);
              }),
              HasSubstr("paused_seconds = -1"));
}

TEST(HeadersTest, AProgressReportComesBackAndAnUnknownProgressIsRefused) {
  const ProgressHeader sent{engine::RoundProgress::kGathering, 7};
  const ProgressHeader back = decode_progress_header(bytes_of(sent), kHeaderSender);
  EXPECT_EQ(back.progress, engine::RoundProgress::kGathering);
  EXPECT_EQ(back.update_id, 7);
  EXPECT_EQ(refusal([] {
              decode_progress_header(bytes_of(ProgressHeader{engine::RoundProgress{2}, 7}),
                                     kHeaderSender);
            }),
            "rank 5 sent a progress report with progress = 2, expected 0 (with its leader) or 1 "
            "(gathering)");
  EXPECT_THAT(refusal([] {
                decode_progress_header(
                    bytes_of(ProgressHeader{engine::RoundProgress::kWithLeader, -1}),
                    kHeaderSender);
              }),
              HasSubstr("update_id = -1"));
  EXPECT_THAT(refusal([] { decode_progress_header({}, kHeaderSender); }),
              HasSubstr("a progress report of 0 bytes, expected 8"));
}

}  // namespace
}  // namespace hetps::mpi
